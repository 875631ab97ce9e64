// A runner process for the webhooks' kill -9 property (test/node/webhooks-kill.test.ts): the Node runtime's
// deps on the SQLite file it is given (sandbox mode, so its real sender may reach the test's loopback
// receiver), running rounds of the job runner as the server's timer would. The parent kills it with SIGKILL
// at any moment, in the middle of a step's deliveries too.
import { createNodeDeps } from "../../src/entry/node-server.ts";
import { runDueJobs } from "../../src/services/job-runner.ts";

const [path = "", lease = "2000"] = process.argv.slice(2);
const deps = await createNodeDeps({
  env: { SII_UPSTREAM: "sandbox", JOB_LEASE_MS: lease },
  database: path,
  publicDir: ".",
  log: { log: () => {} },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

process.stdout.write("runner ready\n");
for (;;) {
  const round = await runDueJobs(deps.jobs, deps);
  if (round.ran + round.lost === 0) await sleep(10);
}
