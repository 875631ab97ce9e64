// Durable Objects for the state that must be exact under concurrency. Their RPC methods are
// synchronous SQLite work, so no two calls interleave: no locks needed.
import { DurableObject } from "cloudflare:workers";
import type { Plan } from "../../ports/access.ts";
import type {
  FolioAddResult,
  FolioAllocation,
  FolioClaim,
  FolioHold,
  FolioRangeRecord,
  FolioRangeState,
  IdempotencyBegin,
  QuotaDecision,
  QuotaState,
} from "../../ports/stores.ts";
import {
  addRange,
  allocateIn,
  cafIn,
  claimIn,
  type LedgerState,
  parseLedger,
  registerIn,
  releaseIn,
  settleIn,
  setUmbralIn,
  summary,
  umbralIn,
  voidIn,
} from "../folio-ledger.ts";
import { PURGE_BATCH, purgeSchedule } from "../idempotency-expiry.ts";
import { fits, quotaState, type WindowKeys, windowKeys } from "../quota-windows.ts";

/** One per token: its quota windows. */
export class QuotaCounter extends DurableObject<unknown> {
  /** The month whose older windows this instance has pruned already (a new instance prunes again). */
  private prunedBefore = "";

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS quota (window TEXT PRIMARY KEY, used INTEGER NOT NULL)");
  }

  // Both windows in one statement each way: every call is charged here, and each SQL statement
  // costs the object CPU (five statements a charge before, two now).
  private usedIn(keys: WindowKeys): { day: number; month: number } {
    // Two point reads in one statement (an IN list would build a temporary table on each run).
    return this.ctx.storage.sql
      .exec<{ day: number; month: number }>(
        "SELECT coalesce((SELECT used FROM quota WHERE window = ?1), 0) AS day, coalesce((SELECT used FROM quota WHERE window = ?2), 0) AS month",
        keys.day,
        keys.month,
      )
      .one();
  }

  private add(keys: WindowKeys, units: number): void {
    this.ctx.storage.sql.exec(
      "INSERT INTO quota (window, used) VALUES (?2, MAX(0, ?1)), (?3, MAX(0, ?1)) ON CONFLICT(window) DO UPDATE SET used = MAX(0, used + ?1)",
      units,
      keys.day,
      keys.month,
    );
  }

  consume(units: number, plan: Plan, nowMs: number): QuotaDecision {
    const keys = windowKeys(new Date(nowMs));
    const { day, month } = this.usedIn(keys);
    if (!fits(plan, day, month, units)) return { allowed: false, ...quotaState(keys, plan, day, month) };
    this.add(keys, units);
    // Old windows are dead weight; keep the current month's days and the month itself. Once per
    // month and instance: the windows pruned stay gone, and only a new month makes more.
    if (this.prunedBefore !== keys.month) {
      this.ctx.storage.sql.exec("DELETE FROM quota WHERE window < ? AND length(window) = 10", `${keys.month}-01`);
      this.prunedBefore = keys.month;
    }
    return { allowed: true, ...quotaState(keys, plan, day + units, month + units) };
  }

  refund(units: number, consumedAtMs: number): void {
    this.add(windowKeys(new Date(consumedAtMs)), -units);
  }

  peek(plan: Plan, nowMs: number): QuotaState {
    const keys = windowKeys(new Date(nowMs));
    const { day, month } = this.usedIn(keys);
    return quotaState(keys, plan, day, month);
  }
}

/**
 * What the ledger's `begin` answers: the port's states, a completed record as its first part
 * (`head`) and how many more parts its answer has under `attempt`, read with `parts()`: an answer
 * may be larger than one RPC message (32 MiB: "Serialized RPC arguments or return values are
 * limited to 32MiB", cloudflare/workerd src/workerd/api/worker-rpc.c++).
 */
export type LedgerBegin =
  | Exclude<IdempotencyBegin, { state: "completed" }>
  | { state: "completed"; head: string; attempt: string | null; parts: number };

/**
 * One per account: its Idempotency-Key records. A SQLite row holds at most 2 MB ("Maximum
 * string, BLOB or table row size", cloudflare/cloudflare-docs
 * src/content/docs/durable-objects/platform/limits.mdx), so an answer's JSON text is kept in parts:
 * the first in the record's `response`, the rest in `parts` under the id of the attempt holding the
 * record (`attempt`, set by `begin`, replaced by a takeover), staged by `stage()` calls while that
 * attempt holds it and taken by `complete()`, which in one synchronous method checks the attempt
 * still holds it and its parts are all there, flips the record and drops every other attempt's.
 * A completed record's key thus has one attempt's parts, all of them; a new start drops them.
 */
export class IdempotencyLedger extends DurableObject<unknown> {
  private readonly purgeDue = purgeSchedule();

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, state TEXT NOT NULL, until INTEGER NOT NULL, response TEXT, attempt TEXT)",
    );
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS parts (key TEXT NOT NULL, attempt TEXT NOT NULL, n INTEGER NOT NULL, until INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (key, attempt, n))",
    );
    this.migrate();
    // Expiry and the live answers are read through indexes: each SQL row read is billed.
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS records_expiry ON records (until)");
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS records_answers ON records (state, until)");
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS parts_expiry ON parts (until)");
  }

  /**
   * Records written before they named their attempt gain the column; a completed one takes the
   * attempt its parts are kept under (what its replay reads). The constructor runs before any
   * request reaches the object, so this runs once, alone.
   */
  private migrate(): void {
    const sql = this.ctx.storage.sql;
    const columns = sql.exec<{ name: string }>("PRAGMA table_info(records)").toArray();
    if (columns.some((column) => column.name === "attempt")) return;
    sql.exec("ALTER TABLE records ADD COLUMN attempt TEXT");
    sql.exec("UPDATE records SET attempt = (SELECT attempt FROM parts WHERE parts.key = records.key LIMIT 1) WHERE state = 'completed'");
  }

  private answers(nowMs: number): { n: number; first: number | null } {
    const row = this.ctx.storage.sql
      .exec<{ n: number; first: number | null }>(
        "SELECT COUNT(*) AS n, MIN(until) AS first FROM records WHERE state = 'completed' AND until > ?",
        nowMs,
      )
      .toArray()[0];
    return row ?? { n: 0, first: null };
  }

  /** The record of `key` is in progress under `attempt` of this request. */
  private heldBy(key: string, fingerprint: string, attempt: string): boolean {
    return (
      this.ctx.storage.sql
        .exec(
          "SELECT 1 FROM records WHERE key = ? AND fingerprint = ? AND attempt = ? AND state = 'in_progress'",
          key,
          fingerprint,
          attempt,
        )
        .toArray().length > 0
    );
  }

  private dropParts(key: string): void {
    this.ctx.storage.sql.exec("DELETE FROM parts WHERE key = ?", key);
  }

  begin(key: string, fingerprint: string, attempt: string, nowMs: number, leaseMs: number, maxStored: number): LedgerBegin {
    const sql = this.ctx.storage.sql;
    const row = sql
      .exec<{ fingerprint: string; state: string; until: number; response: string | null; attempt: string | null }>(
        "SELECT fingerprint, state, until, response, attempt FROM records WHERE key = ?",
        key,
      )
      .toArray()[0];
    if (!row || row.until <= nowMs) {
      const held = this.answers(nowMs);
      if (held.n >= maxStored) return { state: "full", stored: held.n, freesAt: held.first ?? nowMs };
      this.dropParts(key); // the expired answer's, and any an attempt staged and never completed
      sql.exec(
        "INSERT OR REPLACE INTO records (key, fingerprint, state, until, response, attempt) VALUES (?, ?, 'in_progress', ?, NULL, ?)",
        key,
        fingerprint,
        nowMs + leaseMs,
        attempt,
      );
      if (this.purgeDue()) {
        sql.exec(`DELETE FROM records WHERE key IN (SELECT key FROM records WHERE until <= ? LIMIT ${PURGE_BATCH})`, nowMs);
        sql.exec(`DELETE FROM parts WHERE rowid IN (SELECT rowid FROM parts WHERE until <= ? LIMIT ${PURGE_BATCH})`, nowMs);
      }
      return { state: "started" };
    }
    if (row.fingerprint !== fingerprint) return { state: "conflict" };
    if (row.state === "completed" && row.response !== null) {
      const parts = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM parts WHERE key = ? AND attempt = ?", key, row.attempt).one().n;
      return { state: "completed", head: row.response, attempt: row.attempt, parts };
    }
    return { state: "in_progress" };
  }

  /** Parts `from` (1 is the first after the head) onwards of an answer: as many as are kept, at most `count`. */
  parts(key: string, attempt: string, from: number, count: number): string[] {
    return this.ctx.storage.sql
      .exec<{ data: string }>(
        "SELECT data FROM parts WHERE key = ? AND attempt = ? AND n >= ? AND n < ? ORDER BY n",
        key,
        attempt,
        from,
        from + count,
      )
      .toArray()
      .map((row) => row.data);
  }

  /** Keeps parts `from`… of `attempt`'s answer; false (nothing kept) once `attempt` does not hold the record in progress. */
  stage(key: string, fingerprint: string, attempt: string, from: number, parts: string[], untilMs: number): boolean {
    if (!this.heldBy(key, fingerprint, attempt)) return false;
    for (const [i, data] of parts.entries()) {
      this.ctx.storage.sql.exec(
        "INSERT OR REPLACE INTO parts (key, attempt, n, until, data) VALUES (?, ?, ?, ?, ?)",
        key,
        attempt,
        from + i,
        untilMs,
        data,
      );
    }
    return true;
  }

  /**
   * Completes the record with `head` and the `parts` parts `attempt` staged; true when it did. When
   * `attempt` no longer holds the record in progress, false and nothing changes: a retry that took
   * it over, or an abandon, dropped what it had staged, and parts it still has are its kept answer's
   * (completed before). When its staged parts are not all there, false and they go.
   */
  complete(key: string, fingerprint: string, head: string, attempt: string, parts: number, nowMs: number, ttlMs: number): boolean {
    const sql = this.ctx.storage.sql;
    if (!this.heldBy(key, fingerprint, attempt)) return false;
    const staged = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM parts WHERE key = ? AND attempt = ?", key, attempt).one().n;
    if (staged !== parts) {
      sql.exec("DELETE FROM parts WHERE key = ? AND attempt = ?", key, attempt);
      return false;
    }
    sql.exec("UPDATE records SET state = 'completed', until = ?, response = ? WHERE key = ?", nowMs + ttlMs, head, key);
    sql.exec("DELETE FROM parts WHERE key = ? AND attempt <> ?", key, attempt);
    return true;
  }

  abandon(key: string, fingerprint: string, attempt: string): void {
    const dropped = this.ctx.storage.sql.exec(
      "DELETE FROM records WHERE key = ? AND fingerprint = ? AND attempt = ? AND state = 'in_progress'",
      key,
      fingerprint,
      attempt,
    ).rowsWritten;
    if (dropped > 0) this.dropParts(key);
  }

  stored(nowMs: number): number {
    return this.answers(nowMs).n;
  }
}

/** One per taxpayer (RUT): its cached SII sessions and the pacing of its calls. */
export class SiiSessions extends DurableObject<unknown> {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS sessions (key TEXT PRIMARY KEY, sealed TEXT NOT NULL, until INTEGER NOT NULL)");
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS slots (key TEXT PRIMARY KEY, next INTEGER NOT NULL)");
  }

  get(key: string, nowMs: number): string | null {
    const row = this.ctx.storage.sql
      .exec<{ sealed: string }>("SELECT sealed FROM sessions WHERE key = ? AND until > ?", key, nowMs)
      .toArray()[0];
    return row?.sealed ?? null;
  }

  put(key: string, sealed: string, ttlMs: number, nowMs: number): void {
    this.ctx.storage.sql.exec("DELETE FROM sessions WHERE until <= ?", nowMs);
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO sessions (key, sealed, until) VALUES (?, ?, ?)", key, sealed, nowMs + ttlMs);
  }

  delete(key: string): void {
    this.ctx.storage.sql.exec("DELETE FROM sessions WHERE key = ?", key);
  }

  reserve(key: string, intervalMs: number, nowMs: number, maxWaitMs: number): number {
    const row = this.ctx.storage.sql.exec<{ next: number }>("SELECT next FROM slots WHERE key = ?", key).toArray()[0];
    const slot = Math.max(nowMs, row?.next ?? 0);
    if (slot - nowMs > maxWaitMs) return slot - nowMs; // too far off for the caller: not booked
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO slots (key, next) VALUES (?, ?)", key, slot + intervalMs);
    return slot - nowMs;
  }
}

/**
 * One per account, issuer and type: its folio ledger. Every method reads and writes the one row
 * synchronously, so concurrent allocations from any number of isolates are served one at a time.
 */
export class FolioLedger extends DurableObject<unknown> {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS ledger (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL)");
  }

  private update<T>(work: (state: LedgerState) => T, writes: boolean): T {
    const row = this.ctx.storage.sql.exec<{ state: string }>("SELECT state FROM ledger WHERE id = 1").toArray()[0];
    const state = parseLedger(row?.state);
    const result = work(state);
    if (writes) this.ctx.storage.sql.exec("INSERT OR REPLACE INTO ledger (id, state) VALUES (1, ?)", JSON.stringify(state));
    return result;
  }

  add(range: FolioRangeRecord): FolioAddResult {
    return this.update((s) => addRange(s, range), true);
  }

  ranges(): FolioRangeState[] {
    return this.update(summary, false);
  }

  cafOf(folio: number): string | null {
    return this.update((s) => cafIn(s, folio), false);
  }

  /** On an issuer's register (registerId): see registerIn. */
  register(desde: number, hasta: number, account: string): { desde: number; hasta: number } | null {
    return this.update((s) => registerIn(s, { desde, hasta }, account), true);
  }

  allocate(count: number, hold: FolioHold, today?: string): FolioAllocation {
    return this.update((s) => allocateIn(s, count, hold, today), true);
  }

  claim(folios: number[], hold: FolioHold, today?: string): FolioClaim {
    return this.update((s) => claimIn(s, folios, hold, today), true);
  }

  settle(hold: FolioHold): boolean {
    return this.update((s) => settleIn(s, hold), true);
  }

  release(hold: FolioHold): number[] {
    return this.update((s) => releaseIn(s, hold), true);
  }

  void(desde: number, hasta: number): number {
    return this.update((s) => voidIn(s, desde, hasta), true);
  }

  setThreshold(umbral: number | null): number | null {
    return this.update((s) => setUmbralIn(s, umbral), true);
  }

  threshold(): number | null {
    return this.update(umbralIn, false);
  }
}
