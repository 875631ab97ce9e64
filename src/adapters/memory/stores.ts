// In-memory stores: for unit tests and single-process experiments. Everything is synchronous
// inside each method, so each call is atomic on its own.
import type {
  CacheStore,
  FolioLedgerStore,
  IdempotencyBegin,
  IdempotencyStore,
  QuotaStore,
  SessionStore,
  SettingsStore,
  StoredResponse,
  TokenRecord,
  TokenStore,
} from "../../ports/stores.ts";
import { ledgerStore, parseLedger } from "../folio-ledger.ts";
import { PURGE_BATCH, purgeSchedule } from "../idempotency-expiry.ts";
import { fits, quotaState, windowKeys } from "../quota-windows.ts";

const copy = <T>(value: T): T => structuredClone(value);

export function memoryTokenStore(): TokenStore {
  const byId = new Map<string, TokenRecord>();
  return {
    async put(record) {
      byId.set(record.id, copy(record));
    },
    async getById(id) {
      const r = byId.get(id);
      return r ? copy(r) : null;
    },
    async getByHash(hash) {
      for (const r of byId.values()) if (r.token_hash === hash) return copy(r);
      return null;
    },
    async list() {
      return [...byId.values()].map(copy);
    },
    async delete(id) {
      return byId.delete(id);
    },
  };
}

export function memoryQuotaStore(): QuotaStore {
  const used = new Map<string, number>();
  const get = (k: string) => used.get(k) ?? 0;
  return {
    async consume(tokenId, units, plan, now) {
      const keys = windowKeys(now);
      const day = `${tokenId}|${keys.day}`;
      const month = `${tokenId}|${keys.month}`;
      const allowed = fits(plan, get(day), get(month), units);
      if (allowed) {
        used.set(day, get(day) + units);
        used.set(month, get(month) + units);
      }
      return { allowed, ...quotaState(keys, plan, get(day), get(month)) };
    },
    async refund(tokenId, units, consumedAt) {
      const keys = windowKeys(consumedAt);
      for (const k of [`${tokenId}|${keys.day}`, `${tokenId}|${keys.month}`]) used.set(k, Math.max(0, get(k) - units));
    },
    async peek(tokenId, plan, now) {
      const keys = windowKeys(now);
      return quotaState(keys, plan, get(`${tokenId}|${keys.day}`), get(`${tokenId}|${keys.month}`));
    },
  };
}

export function memorySettingsStore(): SettingsStore {
  const values = new Map<string, unknown>();
  return {
    async get<T>(account: string, key: string) {
      const v = values.get(`${account}|${key}`);
      return v === undefined ? null : (copy(v) as T);
    },
    async put(account, key, value) {
      values.set(`${account}|${key}`, copy(value));
    },
    async delete(account, key) {
      values.delete(`${account}|${key}`);
    },
  };
}

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

export function memoryStores() {
  return {
    tokens: memoryTokenStore(),
    quota: memoryQuotaStore(),
    settings: memorySettingsStore(),
    idempotency: memoryIdempotencyStore(),
    sessions: memorySessionStore(),
    cache: memoryCacheStore(),
    folios: memoryFolioLedgerStore(),
  };
}

/** Each ledger kept as its JSON text, so no caller holds a live reference into it. */
export function memoryFolioLedgerStore(): FolioLedgerStore {
  const ledgers = new Map<string, string>();
  return ledgerStore(async (id, work, writes) => {
    const state = parseLedger(ledgers.get(id));
    const result = work(state);
    if (writes) ledgers.set(id, JSON.stringify(state));
    return copy(result);
  });
}

/** Sessions in process memory: right for one Node process (a cache; a restart only means new logins). */
export function memorySessionStore(maxEntries = 10_000): SessionStore {
  const entries = new Map<string, { sealed: string; until: number }>();
  const nextSlot = new Map<string, number>();
  return {
    async get(key, now) {
      const entry = entries.get(key);
      if (!entry || entry.until <= now.getTime()) return null;
      return entry.sealed;
    },
    async put(key, sealed, ttlMs, now) {
      entries.delete(key);
      entries.set(key, { sealed, until: now.getTime() + ttlMs });
      // Oldest first: a Map keeps insertion order.
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(oldest);
      }
    },
    async delete(key) {
      entries.delete(key);
    },
    async reserve(key, intervalMs, now, maxWaitMs = Number.POSITIVE_INFINITY) {
      const slot = Math.max(now.getTime(), nextSlot.get(key) ?? 0);
      if (slot - now.getTime() > maxWaitMs) return slot - now.getTime();
      nextSlot.set(key, slot + intervalMs);
      if (nextSlot.size > maxEntries) for (const [k, at] of nextSlot) if (at <= now.getTime()) nextSlot.delete(k);
      return slot - now.getTime();
    },
  };
}

export function memoryCacheStore(): CacheStore {
  const entries = new Map<string, { value: string; until: number }>();
  return {
    async get(key, now) {
      const entry = entries.get(key);
      return entry && entry.until > now.getTime() ? entry.value : null;
    },
    async put(key, value, now, ttlMs) {
      entries.set(key, { value, until: ttlMs === undefined ? Number.POSITIVE_INFINITY : now.getTime() + ttlMs });
    },
  };
}
