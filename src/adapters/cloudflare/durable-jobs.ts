// Jobs, events and result pieces in a Durable Object per account (the object: src/entry/worker-jobs.ts):
// the SQL store's engine over the object's own storage, the JobStore the Worker's routes use (each call
// goes to the account's object), and the registry of accounts with live jobs that the cron re-arms.
// Invariant: an account's jobs, events and result pieces live in its object alone, so every JobStore
// call for it is one object's synchronous SQL work, served one at a time.
import type {
  EventRecord,
  EventType,
  JobChange,
  JobCreation,
  JobRecord,
  JobState,
  JobStore,
  JobUpdate,
  ListOptions,
  NewEvent,
} from "../../ports/jobs.ts";
import type { SqlEngine, SqlValue } from "../sql-jobs.ts";

/** The object's SQLite as the SQL store's engine: `transactionSync` is the atomic unit (it rolls back on a throw). */
export function durableSqlEngine(storage: DurableObjectStorage): SqlEngine {
  return {
    all: <T>(sql: string, ...params: SqlValue[]) => storage.sql.exec(sql, ...params).toArray() as T[],
    run: (sql, ...params) => void storage.sql.exec(sql, ...params),
    atomic: (work) => storage.transactionSync(work),
  };
}

/**
 * What an account's object answers over RPC: JobStore and JobQueue on its own jobs, and `rearm`. Declared
 * here rather than imported from the class, which is entry code (the layers point one way).
 */
export interface AccountJobsRpc extends Rpc.DurableObjectBranded {
  create(job: JobRecord, maxLive: number): Promise<JobCreation>;
  get(account: string, id: string): JobRecord | null;
  list(account: string, options: ListOptions): JobRecord[];
  change(account: string, id: string, from: JobState[], update: JobUpdate, events: NewEvent[], now: number): Promise<JobChange>;
  events(account: string, options: { after: number; type?: EventType; limit: number }, now: number): EventRecord[];
  event(account: string, id: string, now: number): EventRecord | null;
  live(account: string, subjectPrefix: string): JobRecord[];
  wake(account: string, subjectPrefix: string, now: number): Promise<number>;
  putResultPiece(account: string, id: string, attempt: number, index: number, sealed: string, expires: number): Promise<void>;
  resultPiece(account: string, id: string, attempt: number, index: number, now: number): string | null;
  lease(now: number, leaseMs: number, limit: number): JobRecord[];
  finish(job: JobRecord, update: JobUpdate, events: NewEvent[], now: number): Promise<EventRecord[] | null>;
  nextDue(): number | null;
  /** Sets the alarm from nextDue when none is set, or a later one: what an object whose alarm was lost needs. */
  rearm(): Promise<void>;
}

/** The Worker's JobStore: each account's calls go to its object (`idFromName(account)`). */
export function durableJobStore(ns: DurableObjectNamespace<AccountJobsRpc>): JobStore {
  const of = (account: string) => ns.get(ns.idFromName(account));
  return {
    create: (job, maxLive) => of(job.account).create(job, maxLive),
    get: (account, id) => of(account).get(account, id),
    list: (account, options) => of(account).list(account, options),
    change: (account, id, from, update, events, now) => of(account).change(account, id, [...from], update, events, now),
    events: (account, options, now) => of(account).events(account, options, now),
    event: (account, id, now) => of(account).event(account, id, now),
    live: (account, prefix) => of(account).live(account, prefix),
    wake: (account, prefix, now) => of(account).wake(account, prefix, now),
    putResultPiece: (account, id, attempt, index, sealed, expires) =>
      of(account).putResultPiece(account, id, attempt, index, sealed, expires),
    resultPiece: (account, id, attempt, index, now) => of(account).resultPiece(account, id, attempt, index, now),
  };
}

/**
 * The registry's keys in the SETTINGS namespace. Settings keys begin with an account name through
 * encodeURIComponent, which never leaves a ":", so no settings key starts with this.
 */
export const JOB_ACCOUNTS_PREFIX = "jobs:";

/** Objects re-armed at once by the cron: a bounded number of RPCs in flight. */
const REARM_AT_ONCE = 20;

/**
 * Notes `account` as holding live jobs until `untilMs` (real time): a KV key that expires by itself, so
 * nothing ever deletes it (a delete could race a creation's write and drop a live account).
 */
export async function registerJobAccount(kv: KVNamespace, account: string, untilMs: number): Promise<void> {
  await kv.put(`${JOB_ACCOUNTS_PREFIX}${encodeURIComponent(account)}`, "", { expiration: Math.ceil(untilMs / 1000) });
}

/** The accounts the registry holds, page by page (a KV list answers at most 1 000 keys). */
export async function* jobAccounts(kv: KVNamespace): AsyncGenerator<string> {
  let cursor: string | undefined;
  do {
    const page = await kv.list({ prefix: JOB_ACCOUNTS_PREFIX, cursor });
    for (const key of page.keys) yield decodeURIComponent(key.name.slice(JOB_ACCOUNTS_PREFIX.length));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
}

/**
 * Re-arms the object of every registered account; answers how many were re-armed and how many refused.
 * Safe to run at any time: a re-arm only ever sets an alarm that is missing or later than the object's
 * next due job, and an object with nothing due answers after one read (a stale registration costs that
 * read and nothing else). One object that fails leaves the others re-armed.
 */
export async function rearmJobAccounts(
  ns: DurableObjectNamespace<AccountJobsRpc>,
  kv: KVNamespace,
): Promise<{ rearmed: number; failed: number }> {
  let rearmed = 0;
  let failed = 0;
  let batch: string[] = [];
  const flush = async () => {
    for (const r of await Promise.allSettled(batch.map((account) => ns.get(ns.idFromName(account)).rearm()))) {
      if (r.status === "fulfilled") rearmed++;
      else failed++;
    }
    batch = [];
  };
  for await (const account of jobAccounts(kv)) {
    batch.push(account);
    if (batch.length >= REARM_AT_ONCE) await flush();
  }
  await flush();
  return { rearmed, failed };
}
