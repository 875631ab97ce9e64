// A runner process for the jobs' kill -9 property (test/node/jobs-kill.test.ts): on the SQLite file it is
// given, it leases what is due and finishes each job with its next step and one event naming that step.
// A step's work takes a random while, sometimes longer than the lease, so another runner takes the job
// over and this one's late finish must write nothing. Before its finish each step keeps a result of PIECES
// pieces under its attempt (its leased version), as the RCV download job keeps its documents, and names
// them in its progress. The parent kills it with SIGKILL at any moment, in the middle of the pieces too.
import { openDatabase } from "../../src/adapters/node/sqlite-database.ts";
import { sqliteJobStore } from "../../src/adapters/node/sqlite-jobs.ts";
import { PIECES, pieceText } from "./job-kill-pieces.ts";

const [path = "", steps = "5", lease = "300"] = process.argv.slice(2);
const STEPS = Number(steps);
const LEASE_MS = Number(lease);
const store = sqliteJobStore(openDatabase(path));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

process.stdout.write("runner ready\n");
for (;;) {
  const leased = await store.lease(Date.now(), LEASE_MS, 3);
  if (leased.length === 0) await sleep(5);
  for (const job of leased) {
    await sleep(Math.random() < 0.05 ? LEASE_MS * 1.5 : Math.random() * 8);
    const step = job.runs + 1;
    const last = step >= STEPS;
    for (let i = 0; i < PIECES; i++) {
      await store.putResultPiece(job.account, job.id, job.version, i, pieceText(job.id, job.version, i), Date.now() + 3_600_000);
    }
    await store.finish(
      job,
      {
        estado: last ? "completado" : "pendiente",
        progress: { step, resultado: { intento: job.version, piezas: PIECES } },
        sealed: null,
        due: last ? null : Date.now(),
        runs: step,
        error: null,
      },
      [{ type: "dte_envio.processed", data: { step } }],
      Date.now(),
    );
  }
}
