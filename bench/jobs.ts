// Jobs on the Node runtime's SQLite file, in this process: what a scheduler's wake-up costs when nothing
// is due (the Node timer looks every 5 s at most; a Durable Object's alarm and the Lambda's schedule run
// the same round), with many jobs waiting for later, and the CPU of a job's run (its lease, its step, its
// finish). Reported, not gated: absolute CPU times, with no reference of the same run to divide by.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNodeDeps } from "../src/entry/node-server.ts";
import { randomName } from "../src/lib/random-name.ts";
import type { JobRecord } from "../src/ports/jobs.ts";
import { runDueJobs } from "../src/services/job-runner.ts";

export interface JobFigure {
  name: string;
  unit: string;
  value: number;
}

/** A ledger watch due at `due` (its step reads the account's empty ledger and ends): runner work with no SII call. */
function watch(account: string, n: number, due: number): JobRecord {
  return {
    id: randomName("job"),
    account,
    kind: "vigilancia_folios",
    subject: `folios:76192083-9:${n}`,
    estado: "pendiente",
    input: { emisor: "76192083-9", dte: n },
    progress: null,
    sealed: null,
    token_id: "tok_bench",
    created_at: due,
    updated_at: due,
    due,
    expires: due + 365 * 24 * 3600_000,
    runs: 0,
    error: null,
    lease_until: 0,
    version: 1,
  };
}

/** The CPU (ms) this process spends on `work`. */
export const cpuMs = (work: () => Promise<void>) => async () => {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

export async function jobFigures(quick: boolean): Promise<JobFigure[]> {
  const deps = await createNodeDeps({
    env: { SII_UPSTREAM: "sandbox" },
    database: join(mkdtempSync(join(tmpdir(), "sii-bench-jobs-")), "state.sqlite"),
    publicDir: "public",
    log: { log: () => {} },
  });
  const now = deps.clock.now().getTime();
  const waiting = quick ? 200 : 1000;
  for (let i = 0; i < waiting; i++) await deps.jobs.create(watch(`bench_${i % 20}`, 1000 + i, now + 3600_000), 1000);
  const wakes = quick ? 500 : 2000;
  const idle = await cpuMs(async () => {
    for (let i = 0; i < wakes; i++) await runDueJobs(deps.jobs, deps);
  })();
  const due = quick ? 200 : 1000;
  for (let i = 0; i < due; i++) await deps.jobs.create(watch("bench_due", i, now), 1000);
  let ran = 0;
  const busy = await cpuMs(async () => {
    for (let round = await runDueJobs(deps.jobs, deps); round.ran > 0; round = await runDueJobs(deps.jobs, deps)) ran += round.ran;
  })();
  if (ran !== due) throw new Error(`the bench's rounds ran ${ran} of ${due} due jobs`);
  return [
    {
      name: `jobs: CPU of a wake-up with nothing due (SQLite, ${waiting} jobs waiting for later)`,
      unit: "µs",
      value: (idle / wakes) * 1000,
    },
    { name: "jobs: CPU per job run (lease, a ledger watch's step, its finish; 25 a round)", unit: "µs", value: (busy / due) * 1000 },
  ];
}
