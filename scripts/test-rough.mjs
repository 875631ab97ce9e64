// `npm run test:rough`: the suite (every project) once more against the rough sandbox
// (src/sandbox/rough.ts), less the unit tests beside the code (`src/**`): they meet no sandbox the
// schedule applies to (pure code, or a simulator they configure themselves), so a second run
// proves nothing. The seed is SANDBOX_ROUGH_SEED, or a random one; it is printed before and, on
// failure, after the run, so `SANDBOX_ROUGH_SEED=<seed> npm run test:rough` reproduces it.
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";

const given = process.env.SANDBOX_ROUGH_SEED?.trim();
if (given && !/^\d{1,10}$/.test(given)) {
  console.error(`SANDBOX_ROUGH_SEED must be a whole number, not ${JSON.stringify(given)}`);
  process.exit(2);
}
const seed = given || String(randomInt(1, 2 ** 31));
console.log(`rough sandbox: SANDBOX_ROUGH_SEED=${seed}`);
const run = spawnSync("vitest", ["run", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, SANDBOX_ROUGH_SEED: seed, SKIP_UNIT_TESTS: "1" },
  shell: process.platform === "win32",
});
const status = run.status ?? 1;
if (status !== 0) console.error(`\nrough sandbox run failed; reproduce with: SANDBOX_ROUGH_SEED=${seed} npm run test:rough`);
process.exit(status);
