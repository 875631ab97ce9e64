// Jobs, events and jobs' result pieces in SQLite, one schema for the two engines that speak it: the
// Node file (node:sqlite, every method in an IMMEDIATE transaction: atomic against other processes on
// the file) and the Durable Object of an account (its methods are synchronous, so no two interleave).
// The invariants are JobStore's (src/ports/jobs.ts): a lease is held by one runner, a step's state and
// its events are one write, made only while the job's version is the one the runner read.

import { randomName } from "../lib/random-name.ts";
import {
  EVENT_KEPT_MS,
  type EventRecord,
  type EventType,
  JOB_KEPT_MS,
  type JobChange,
  type JobCreation,
  type JobRecord,
  type JobState,
  type JobUpdate,
  LIVE_JOB_STATES,
  type ListOptions,
  MAX_LIVE_JOBS,
  type NewEvent,
} from "../ports/jobs.ts";

/** What the store needs of an engine: statements with positional parameters, and one atomic unit of work. */
export interface SqlEngine {
  all<T>(sql: string, ...params: SqlValue[]): T[];
  run(sql: string, ...params: SqlValue[]): void;
  atomic<T>(work: () => T): T;
}
export type SqlValue = string | number | null;

export const JOBS_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, account TEXT NOT NULL, kind TEXT NOT NULL, subject TEXT NOT NULL, estado TEXT NOT NULL,
    input TEXT NOT NULL, progress TEXT, sealed TEXT, token_id TEXT NOT NULL, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, due INTEGER, expires INTEGER NOT NULL, runs INTEGER NOT NULL, error TEXT,
    lease_until INTEGER NOT NULL, version INTEGER NOT NULL)`,
  // The runner's question (what is due) and the timer's (when next) read this index only.
  "CREATE INDEX IF NOT EXISTS jobs_due ON jobs (due) WHERE due IS NOT NULL",
  "CREATE INDEX IF NOT EXISTS jobs_account ON jobs (account, created_at)",
  // One live job per account and subject, held by the engine itself.
  "CREATE UNIQUE INDEX IF NOT EXISTS jobs_live_subject ON jobs (account, subject) WHERE estado IN ('pendiente', 'credenciales_requeridas')",
  `CREATE TABLE IF NOT EXISTS events (
    account TEXT NOT NULL, sequence INTEGER NOT NULL, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
    created_at INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (account, sequence))`,
  "CREATE INDEX IF NOT EXISTS events_age ON events (created_at)",
  // The last sequence given per account: events expire, their numbers are never given again.
  "CREATE TABLE IF NOT EXISTS event_sequences (account TEXT PRIMARY KEY, last INTEGER NOT NULL)",
  // A job's result pieces (sealed by the caller), kept until `expires`: the rounds erase them, oldest first.
  `CREATE TABLE IF NOT EXISTS job_results (
    account TEXT NOT NULL, job_id TEXT NOT NULL, attempt INTEGER NOT NULL, idx INTEGER NOT NULL, sealed TEXT NOT NULL,
    expires INTEGER NOT NULL, PRIMARY KEY (account, job_id, attempt, idx))`,
  "CREATE INDEX IF NOT EXISTS job_results_expires ON job_results (expires)",
];

/** Expired events, ended jobs and expired result pieces dropped per lease call: bounded work, never all at once. */
const PURGE_BATCH = 100;

/** A job as its row holds it: the record with `input` and `progress` as JSON text. */
type JobRow = Omit<JobRecord, "input" | "progress"> & { input: string; progress: string | null };

interface EventRow {
  account: string;
  sequence: number;
  id: string;
  type: string;
  created_at: number;
  data: string;
}

const jobOf = (row: JobRow): JobRecord => ({
  ...row,
  kind: row.kind as JobRecord["kind"],
  estado: row.estado as JobState,
  input: JSON.parse(row.input),
  progress: row.progress === null ? null : JSON.parse(row.progress),
});

const eventOf = (row: EventRow): EventRecord => ({ ...row, type: row.type as EventType, data: JSON.parse(row.data) });

const LIVE = LIVE_JOB_STATES.map((s) => `'${s}'`).join(", ");

/** The store's methods, synchronous: the Node adapter wraps them in promises, a Durable Object serves them as RPC. */
export function sqlJobs(sql: SqlEngine) {
  const getRow = (account: string, id: string) => sql.all<JobRow>("SELECT * FROM jobs WHERE id = ? AND account = ?", id, account)[0];

  /** Appends `events` of `job` with the account's next sequences. */
  const append = (account: string, jobId: string, events: NewEvent[], now: number): EventRecord[] => {
    if (!events.length) return [];
    const last = sql.all<{ last: number }>("SELECT last FROM event_sequences WHERE account = ?", account)[0]?.last ?? 0;
    sql.run("INSERT OR REPLACE INTO event_sequences (account, last) VALUES (?, ?)", account, last + events.length);
    return events.map((event, i) => {
      const record: EventRecord = {
        id: randomName("evt"),
        account,
        type: event.type,
        created_at: now,
        sequence: last + i + 1,
        data: { ...event.data, job_id: jobId },
      };
      sql.run(
        "INSERT INTO events (account, sequence, id, type, created_at, data) VALUES (?, ?, ?, ?, ?, ?)",
        account,
        record.sequence,
        record.id,
        record.type,
        record.created_at,
        JSON.stringify(record.data),
      );
      return record;
    });
  };

  /** Writes `update` when the job's version is `version`; true when it did. */
  const write = (account: string, id: string, version: number, update: JobUpdate, now: number): boolean => {
    const before = sql.all<{ version: number }>("SELECT version FROM jobs WHERE id = ? AND account = ?", id, account)[0];
    if (!before || before.version !== version) return false;
    sql.run(
      "UPDATE jobs SET estado = ?, input = COALESCE(?, input), progress = ?, sealed = ?, due = ?, runs = ?, error = ?, updated_at = ?, lease_until = 0, version = version + 1 WHERE id = ?",
      update.estado,
      update.input === undefined ? null : JSON.stringify(update.input),
      update.progress === null ? null : JSON.stringify(update.progress),
      update.sealed,
      update.due,
      update.runs,
      update.error,
      now,
      id,
    );
    return true;
  };

  const purge = (now: number) => {
    sql.run(`DELETE FROM events WHERE rowid IN (SELECT rowid FROM events WHERE created_at < ? LIMIT ${PURGE_BATCH})`, now - EVENT_KEPT_MS);
    sql.run(
      `DELETE FROM jobs WHERE rowid IN (SELECT rowid FROM jobs WHERE estado NOT IN (${LIVE}) AND updated_at < ? LIMIT ${PURGE_BATCH})`,
      now - JOB_KEPT_MS,
    );
    sql.run(`DELETE FROM job_results WHERE rowid IN (SELECT rowid FROM job_results WHERE expires <= ? LIMIT ${PURGE_BATCH})`, now);
  };

  return {
    create(job: JobRecord, maxLive: number): JobCreation {
      return sql.atomic(() => {
        const live = sql.all<JobRow>(
          `SELECT * FROM jobs WHERE account = ? AND subject = ? AND estado IN (${LIVE})`,
          job.account,
          job.subject,
        )[0];
        if (live) return { state: "existing", job: jobOf(live) };
        const count =
          sql.all<{ n: number }>(`SELECT COUNT(*) AS n FROM jobs WHERE account = ? AND estado IN (${LIVE})`, job.account)[0]?.n ?? 0;
        if (count >= maxLive) return { state: "full", max: maxLive };
        sql.run(
          `INSERT INTO jobs (id, account, kind, subject, estado, input, progress, sealed, token_id, created_at, updated_at, due, expires, runs, error, lease_until, version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          job.id,
          job.account,
          job.kind,
          job.subject,
          job.estado,
          JSON.stringify(job.input),
          job.progress === null ? null : JSON.stringify(job.progress),
          job.sealed,
          job.token_id,
          job.created_at,
          job.updated_at,
          job.due,
          job.expires,
          job.runs,
          job.error,
          job.lease_until,
          job.version,
        );
        return { state: "created", job };
      });
    },

    get(account: string, id: string): JobRecord | null {
      const row = getRow(account, id);
      return row ? jobOf(row) : null;
    },

    list(account: string, options: ListOptions): JobRecord[] {
      const cursor = options.before ? getRow(account, options.before) : undefined;
      if (options.before && !cursor) return [];
      // Newest first; the cursor's (created_at, id) is the page's upper bound.
      const rows = sql.all<JobRow>(
        `SELECT * FROM jobs WHERE account = ?1 AND (?2 IS NULL OR estado = ?2)
           AND (?3 IS NULL OR created_at < ?3 OR (created_at = ?3 AND id < ?4)) AND (?6 IS NULL OR kind != ?6)
         ORDER BY created_at DESC, id DESC LIMIT ?5`,
        account,
        options.estado ?? null,
        cursor?.created_at ?? null,
        cursor?.id ?? null,
        options.limit,
        options.exceptKind ?? null,
      );
      return rows.map(jobOf);
    },

    lease(now: number, leaseMs: number, limit: number): JobRecord[] {
      return sql.atomic(() => {
        purge(now);
        const rows = sql.all<JobRow>(
          "SELECT * FROM jobs WHERE due IS NOT NULL AND due <= ? AND lease_until <= ? ORDER BY due LIMIT ?",
          now,
          now,
          limit,
        );
        for (const row of rows) sql.run("UPDATE jobs SET lease_until = ?, version = version + 1 WHERE id = ?", now + leaseMs, row.id);
        return rows.map((row) => jobOf({ ...row, lease_until: now + leaseMs, version: row.version + 1 }));
      });
    },

    finish(job: JobRecord, update: JobUpdate, events: NewEvent[], now: number): EventRecord[] | null {
      return sql.atomic(() => (write(job.account, job.id, job.version, update, now) ? append(job.account, job.id, events, now) : null));
    },

    change(account: string, id: string, from: readonly JobState[], update: JobUpdate, events: NewEvent[], now: number): JobChange {
      return sql.atomic(() => {
        const row = getRow(account, id);
        if (!row) return { state: "not_found" };
        if (!from.includes(row.estado as JobState)) return { state: "refused", job: jobOf(row) };
        write(account, id, row.version, update, now);
        const written = append(account, id, events, now);
        return { state: "changed", job: jobOf(getRow(account, id)!), events: written };
      });
    },

    events(account: string, options: { after: number; type?: EventType; limit: number }, now: number): EventRecord[] {
      return sql
        .all<EventRow>(
          "SELECT * FROM events WHERE account = ?1 AND sequence > ?2 AND (?3 IS NULL OR type = ?3) AND created_at >= ?4 ORDER BY sequence LIMIT ?5",
          account,
          options.after,
          options.type ?? null,
          now - EVENT_KEPT_MS,
          options.limit,
        )
        .map(eventOf);
    },

    event(account: string, id: string, now: number): EventRecord | null {
      const row = sql.all<EventRow>(
        "SELECT * FROM events WHERE id = ? AND account = ? AND created_at >= ?",
        id,
        account,
        now - EVENT_KEPT_MS,
      )[0];
      return row ? eventOf(row) : null;
    },

    live(account: string, subjectPrefix: string): JobRecord[] {
      return sql
        .all<JobRow>(
          `SELECT * FROM jobs WHERE account = ? AND estado IN (${LIVE}) AND substr(subject, 1, ?) = ? ORDER BY created_at LIMIT ${MAX_LIVE_JOBS}`,
          account,
          subjectPrefix.length,
          subjectPrefix,
        )
        .map(jobOf);
    },

    wake(account: string, subjectPrefix: string, now: number): number {
      return sql.atomic(() => {
        const where =
          "account = ? AND estado = 'pendiente' AND substr(subject, 1, ?) = ? AND lease_until <= ? AND due IS NOT NULL AND due > ?";
        const params = [account, subjectPrefix.length, subjectPrefix, now, now];
        const n = sql.all<{ n: number }>(`SELECT COUNT(*) AS n FROM jobs WHERE ${where}`, ...params)[0]?.n ?? 0;
        if (n) sql.run(`UPDATE jobs SET due = ?, updated_at = ?, version = version + 1 WHERE ${where}`, now, now, ...params);
        return n;
      });
    },

    putResultPiece(account: string, id: string, attempt: number, index: number, sealed: string, expires: number): void {
      sql.run(
        "INSERT OR REPLACE INTO job_results (account, job_id, attempt, idx, sealed, expires) VALUES (?, ?, ?, ?, ?, ?)",
        account,
        id,
        attempt,
        index,
        sealed,
        expires,
      );
    },

    resultPiece(account: string, id: string, attempt: number, index: number, now: number): string | null {
      // An expired piece a round has not erased yet is not answered.
      const row = sql.all<{ sealed: string }>(
        "SELECT sealed FROM job_results WHERE account = ? AND job_id = ? AND attempt = ? AND idx = ? AND expires > ?",
        account,
        id,
        attempt,
        index,
        now,
      )[0];
      return row?.sealed ?? null;
    },

    nextDue(): number | null {
      const job =
        sql.all<{ next: number | null }>("SELECT MIN(MAX(due, lease_until)) AS next FROM jobs WHERE due IS NOT NULL")[0]?.next ?? null;
      // The rounds erase expired pieces, so the timer (or alarm) wakes for the earliest one too.
      const piece = sql.all<{ next: number | null }>("SELECT MIN(expires) AS next FROM job_results")[0]?.next ?? null;
      return job === null ? piece : piece === null ? job : Math.min(job, piece);
    },
  };
}

export type SqlJobs = ReturnType<typeof sqlJobs>;
