// Durable Objects for the state that must be exact under concurrency. Their RPC methods are
// synchronous SQLite work, so no two calls interleave: no locks needed.
import { DurableObject } from "cloudflare:workers";
import type {
  FolioAddResult,
  FolioAllocation,
  FolioClaim,
  FolioHold,
  FolioRangeRecord,
  FolioRangeState,
  IdempotencyBegin,
  Plan,
  QuotaDecision,
  QuotaState,
  StoredResponse,
} from "../../ports.ts";
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

/** One per account: its Idempotency-Key records. */
export class IdempotencyLedger extends DurableObject<unknown> {
  private readonly purgeDue = purgeSchedule();

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, state TEXT NOT NULL, until INTEGER NOT NULL, response TEXT)",
    );
    // Expiry and the live answers are read through indexes: each SQL row read is billed.
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS records_expiry ON records (until)");
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS records_answers ON records (state, until)");
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

  begin(key: string, fingerprint: string, nowMs: number, leaseMs: number, maxStored: number): IdempotencyBegin {
    const sql = this.ctx.storage.sql;
    const row = sql
      .exec<{ fingerprint: string; state: string; until: number; response: string | null }>(
        "SELECT fingerprint, state, until, response FROM records WHERE key = ?",
        key,
      )
      .toArray()[0];
    if (!row || row.until <= nowMs) {
      const held = this.answers(nowMs);
      if (held.n >= maxStored) return { state: "full", stored: held.n, freesAt: held.first ?? nowMs };
      sql.exec(
        "INSERT OR REPLACE INTO records (key, fingerprint, state, until, response) VALUES (?, ?, 'in_progress', ?, NULL)",
        key,
        fingerprint,
        nowMs + leaseMs,
      );
      if (this.purgeDue()) {
        sql.exec(`DELETE FROM records WHERE key IN (SELECT key FROM records WHERE until <= ? LIMIT ${PURGE_BATCH})`, nowMs);
      }
      return { state: "started" };
    }
    if (row.fingerprint !== fingerprint) return { state: "conflict" };
    if (row.state === "completed" && row.response) return { state: "completed", response: JSON.parse(row.response) as StoredResponse };
    return { state: "in_progress" };
  }

  complete(key: string, fingerprint: string, response: StoredResponse, nowMs: number, ttlMs: number): void {
    this.ctx.storage.sql.exec(
      "UPDATE records SET state = 'completed', until = ?, response = ? WHERE key = ? AND fingerprint = ?",
      nowMs + ttlMs,
      JSON.stringify(response),
      key,
      fingerprint,
    );
  }

  abandon(key: string, fingerprint: string): void {
    this.ctx.storage.sql.exec("DELETE FROM records WHERE key = ? AND fingerprint = ? AND state = 'in_progress'", key, fingerprint);
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
