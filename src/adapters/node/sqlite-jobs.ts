// Jobs, events and result pieces in the Node SQLite file (the schema and the methods: src/adapters/sql-jobs.ts).
import type { DatabaseSync } from "node:sqlite";
import type { JobQueue, JobStore } from "../../ports/jobs.ts";
import { sqlJobs } from "../sql-jobs.ts";
import { sqlEngine } from "./sqlite-database.ts";

/** Two processes on one file: the IMMEDIATE transaction makes each lease and finish atomic against the other. */
export function sqliteJobStore(db: DatabaseSync): JobStore & JobQueue {
  const jobs = sqlJobs(sqlEngine(db));
  return {
    create: async (job, maxLive) => jobs.create(job, maxLive),
    get: async (account, id) => jobs.get(account, id),
    list: async (account, options) => jobs.list(account, options),
    lease: async (now, leaseMs, limit) => jobs.lease(now, leaseMs, limit),
    finish: async (job, update, events, now) => jobs.finish(job, update, events, now),
    change: async (account, id, from, update, events, now) => jobs.change(account, id, from, update, events, now),
    events: async (account, options, now) => jobs.events(account, options, now),
    event: async (account, id, now) => jobs.event(account, id, now),
    live: async (account, prefix) => jobs.live(account, prefix),
    wake: async (account, prefix, now) => jobs.wake(account, prefix, now),
    putResultPiece: async (account, id, attempt, index, sealed, expires) =>
      jobs.putResultPiece(account, id, attempt, index, sealed, expires),
    resultPiece: async (account, id, attempt, index, now) => jobs.resultPiece(account, id, attempt, index, now),
    nextDue: async () => jobs.nextDue(),
  };
}
