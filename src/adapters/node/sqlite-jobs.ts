// Jobs, events and result pieces in the Node SQLite file (the schema and the methods: src/adapters/sql-jobs.ts).
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { JobQueue, JobStore } from "../../ports/jobs.ts";
import { type SqlEngine, sqlJobs } from "../sql-jobs.ts";
import { transaction } from "./sqlite-database.ts";

/** node:sqlite as the SQL store's engine: statements prepared once each, work in IMMEDIATE transactions. */
function engine(db: DatabaseSync): SqlEngine {
  const prepared = new Map<string, StatementSync>();
  const statement = (sql: string) => {
    let s = prepared.get(sql);
    if (!s) {
      s = db.prepare(sql);
      prepared.set(sql, s);
    }
    return s;
  };
  let depth = 0;
  return {
    all: <T>(sql: string, ...params: (string | number | null)[]) => statement(sql).all(...params) as T[],
    run: (sql, ...params) => void statement(sql).run(...params),
    atomic: (work) => {
      // Reads outside a transaction see the last commit (WAL); nested work joins the open transaction.
      if (depth > 0) return work();
      depth++;
      try {
        return transaction(db, work);
      } finally {
        depth--;
      }
    },
  };
}

/** Two processes on one file: the IMMEDIATE transaction makes each lease and finish atomic against the other. */
export function sqliteJobStore(db: DatabaseSync): JobStore & JobQueue {
  const jobs = sqlJobs(engine(db));
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
