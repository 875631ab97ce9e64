// In-memory Idempotency-Key records: for unit tests and single-process experiments. Synchronous inside each method,
// so each call is atomic on its own.
import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from "../../ports/stores.ts";
import { PURGE_BATCH, purgeSchedule } from "../idempotency-expiry.ts";
import { copy } from "./copy.ts";

interface IdemRecord {
  fingerprint: string;
  state: "in_progress" | "completed";
  /** The attempt holding the record while in progress (a takeover replaces it). */
  attempt: string;
  /** ms epoch: lease end while in progress, expiry once completed. */
  until: number;
  response?: StoredResponse;
}

/** The record is in progress under `attempt` for this request. */
const heldBy = (r: IdemRecord | undefined, fingerprint: string, attempt: string) =>
  r?.state === "in_progress" && r.fingerprint === fingerprint && r.attempt === attempt;

export function memoryIdempotencyStore(): IdempotencyStore {
  // Per account, so counting one account's answers reads only its own records.
  const accounts = new Map<string, Map<string, IdemRecord>>();
  const purgeDue = purgeSchedule();
  const recordsOf = (account: string) => {
    const records = accounts.get(account) ?? new Map<string, IdemRecord>();
    accounts.set(account, records);
    return records;
  };
  const live = (records: Map<string, IdemRecord>, nowMs: number) =>
    [...records.values()].filter((r) => r.state === "completed" && r.until > nowMs);
  /** Drops up to PURGE_BATCH expired records. */
  const purge = (nowMs: number) => {
    let dropped = 0;
    for (const [account, records] of accounts) {
      for (const [key, r] of records) {
        if (dropped >= PURGE_BATCH) return;
        if (r.until > nowMs) continue;
        records.delete(key);
        dropped++;
      }
      if (records.size === 0) accounts.delete(account);
    }
  };
  return {
    async begin(account, key, fingerprint, attempt, now, leaseMs, maxStored): Promise<IdempotencyBegin> {
      const records = recordsOf(account);
      const r = records.get(key);
      if (!r || r.until <= now.getTime()) {
        const answers = live(records, now.getTime());
        if (answers.length >= maxStored) {
          return { state: "full", stored: answers.length, freesAt: Math.min(...answers.map((a) => a.until)) };
        }
        records.set(key, { fingerprint, state: "in_progress", attempt, until: now.getTime() + leaseMs });
        if (purgeDue()) purge(now.getTime());
        return { state: "started" };
      }
      if (r.fingerprint !== fingerprint) return { state: "conflict" };
      if (r.state === "completed" && r.response) return { state: "completed", response: copy(r.response) };
      return { state: "in_progress" };
    },
    async complete(account, key, fingerprint, attempt, response, now, ttlMs) {
      const records = recordsOf(account);
      if (!heldBy(records.get(key), fingerprint, attempt)) return false;
      records.set(key, { fingerprint, state: "completed", attempt, until: now.getTime() + ttlMs, response: copy(response) });
      return true;
    },
    async abandon(account, key, fingerprint, attempt) {
      const records = recordsOf(account);
      if (heldBy(records.get(key), fingerprint, attempt)) records.delete(key);
    },
    async stored(account, now) {
      return live(accounts.get(account) ?? new Map(), now.getTime()).length;
    },
  };
}
