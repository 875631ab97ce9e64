// Cloudflare adapters: tokens and settings in KV (read at the edge, rarely written), quota and
// idempotency in Durable Objects (exact under concurrency).
import type {
  CacheStore,
  FolioLedgerStore,
  IdempotencyStore,
  QuotaStore,
  SessionStore,
  SettingsStore,
  StoredResponse,
  TokenRecord,
  TokenStore,
} from "../../ports/stores.ts";
import { addHeld, ledgerId, registerId } from "../folio-ledger.ts";
import { partsOf } from "../idempotency-parts.ts";
import type { FolioLedger, IdempotencyLedger, QuotaCounter, SiiSessions } from "./durable-objects.ts";
import { memo } from "./memo.ts";

/** How long an isolate reuses a token record or a setting it read from KV, and how many it keeps. */
export const KV_MEMO_MS = 10_000;
const KV_MEMO_ENTRIES = 1_000;

// KV is eventually consistent across locations: a block or revoke reaches every edge within
// about a minute (KV's cache time), and other isolates of this location within KV_MEMO_MS.
// Writes through this store are visible in its isolate at once.
export function kvTokenStore(kv: KVNamespace, now: () => number = Date.now): TokenStore {
  // Found records only: an unknown hash (a typo, an attacker's guess) is never held.
  const byHash = memo<TokenRecord | null>({ ttlMs: KV_MEMO_MS, entries: KV_MEMO_ENTRIES, keep: (r) => r !== null, now });
  return {
    async put(record) {
      const previous = await kv.get<TokenRecord>(`id:${record.id}`, "json");
      if (previous && previous.token_hash !== record.token_hash) await kv.delete(`hash:${previous.token_hash}`);
      await kv.put(`id:${record.id}`, JSON.stringify(record));
      await kv.put(`hash:${record.token_hash}`, record.id);
      byHash.clear(); // after the writes: a read that raced them cannot leave the old record held
    },
    async getById(id) {
      return kv.get<TokenRecord>(`id:${id}`, "json");
    },
    getByHash(hash) {
      return byHash.get(hash, async () => {
        const id = await kv.get(`hash:${hash}`);
        if (!id) return null;
        const record = await kv.get<TokenRecord>(`id:${id}`, "json");
        // Shared by the requests of the isolate: frozen, so no caller can change another's.
        return record?.token_hash === hash
          ? (Object.freeze({ ...record, scopes: Object.freeze(record.scopes), plan: Object.freeze(record.plan) }) as TokenRecord)
          : null;
      });
    },
    async list() {
      const records: TokenRecord[] = [];
      let cursor: string | undefined;
      do {
        const page = await kv.list({ prefix: "id:", cursor });
        for (const key of page.keys) {
          const record = await kv.get<TokenRecord>(key.name, "json");
          if (record) records.push(record);
        }
        cursor = page.list_complete ? undefined : page.cursor;
      } while (cursor);
      return records;
    },
    async delete(id) {
      const record = await kv.get<TokenRecord>(`id:${id}`, "json");
      if (!record) return false;
      await kv.delete(`hash:${record.token_hash}`);
      await kv.delete(`id:${id}`);
      byHash.clear();
      return true;
    },
  };
}

export function kvSettingsStore(kv: KVNamespace, now: () => number = Date.now): SettingsStore {
  const name = (account: string, key: string) => `${encodeURIComponent(account)}/${encodeURIComponent(key)}`;
  // The text as stored (none is held too: most accounts have no proxy), parsed for each caller.
  const texts = memo<string | null>({ ttlMs: KV_MEMO_MS, entries: KV_MEMO_ENTRIES, now });
  return {
    async get<T>(account: string, key: string) {
      const text = await texts.get(name(account, key), () => kv.get(name(account, key)));
      return text === null ? null : (JSON.parse(text) as T);
    },
    async put(account, key, value) {
      await kv.put(name(account, key), JSON.stringify(value));
      texts.clear();
    },
    async delete(account, key) {
      await kv.delete(name(account, key));
      texts.clear();
    },
  };
}

export function durableQuotaStore(ns: DurableObjectNamespace<QuotaCounter>): QuotaStore {
  const counter = (tokenId: string) => ns.get(ns.idFromName(tokenId));
  return {
    consume: (tokenId, units, plan, now) => counter(tokenId).consume(units, plan, now.getTime()),
    refund: (tokenId, units, consumedAt) => counter(tokenId).refund(units, consumedAt.getTime()),
    peek: (tokenId, plan, now) => counter(tokenId).peek(plan, now.getTime()),
  };
}

/**
 * UTF-8 bytes of one part of a stored answer: half a SQLite row's 2 MB, leaving room for the rest
 * of the row and the record's key.
 */
const PART_BYTES = 1_000_000;
/**
 * Parts sent or read in one RPC call: a part of non-Latin-1 text serializes at two bytes a
 * character, so four stay well inside the 32 MiB an RPC message may carry.
 */
const PARTS_PER_CALL = 4;

/**
 * One Durable Object per account. An answer larger than a part is completed in several calls
 * (its parts staged first, then one call that flips the record) and replayed in several: parts are
 * read under the id of the attempt that completed it, so a record replaced meanwhile is never read half old,
 * half new (its parts are gone, and the start is tried again).
 */
export function durableIdempotencyStore(ns: DurableObjectNamespace<IdempotencyLedger>): IdempotencyStore {
  const ledger = (account: string) => ns.get(ns.idFromName(account));
  type Ledger = ReturnType<typeof ledger>;

  /** The answer of a completed record, or null when its parts went while they were read. */
  const answerOf = async (
    stub: Ledger,
    key: string,
    head: string,
    attempt: string | null,
    parts: number,
  ): Promise<StoredResponse | null> => {
    const texts = [head];
    for (let from = 1; from <= parts; from += PARTS_PER_CALL) {
      const count = Math.min(PARTS_PER_CALL, parts - from + 1);
      const read = attempt === null ? [] : await stub.parts(key, attempt, from, count);
      if (read.length !== count) return null;
      texts.push(...read);
    }
    return JSON.parse(texts.join("")) as StoredResponse;
  };

  return {
    async begin(account, key, fingerprint, attempt, now, leaseMs, maxStored) {
      const stub = ledger(account);
      for (let tries = 0; tries < 3; tries++) {
        const begun = await stub.begin(key, fingerprint, attempt, now.getTime(), leaseMs, maxStored);
        if (begun.state !== "completed") return begun;
        const response = await answerOf(stub, key, begun.head, begun.attempt, begun.parts);
        if (response) return { state: "completed", response };
      }
      return { state: "in_progress" }; // replaced on every read: the caller waits and asks again
    },
    async complete(account, key, fingerprint, attempt, response, now, ttlMs) {
      const stub = ledger(account);
      const [head = "", ...rest] = partsOf(JSON.stringify(response), PART_BYTES);
      for (let at = 0; at < rest.length; at += PARTS_PER_CALL) {
        const kept = await stub.stage(key, fingerprint, attempt, at + 1, rest.slice(at, at + PARTS_PER_CALL), now.getTime() + ttlMs);
        if (!kept) return false; // this attempt holds the record no longer: nothing to complete
      }
      return stub.complete(key, fingerprint, head, attempt, rest.length, now.getTime(), ttlMs);
    },
    abandon: (account, key, fingerprint, attempt) => ledger(account).abandon(key, fingerprint, attempt),
    stored: (account, now) => ledger(account).stored(now.getTime()),
  };
}

/** One Durable Object per taxpayer: keys start with "<rut>|". */
export function durableSessionStore(ns: DurableObjectNamespace<SiiSessions>): SessionStore {
  const taxpayer = (key: string) => ns.get(ns.idFromName(key.split("|", 1)[0] ?? key));
  return {
    get: (key, now) => taxpayer(key).get(key, now.getTime()),
    put: (key, sealed, ttlMs, now) => taxpayer(key).put(key, sealed, ttlMs, now.getTime()),
    delete: (key) => taxpayer(key).delete(key),
    reserve: (key, intervalMs, now, maxWaitMs = Number.POSITIVE_INFINITY) =>
      taxpayer(key).reserve(key, intervalMs, now.getTime(), maxWaitMs),
  };
}

/**
 * KV keeps an entry for good, or until its expiration (KV's minimum is 60 s). Expiry is also
 * checked on read, since KV may serve a stale copy for up to a minute after it.
 */
export function kvCacheStore(kv: KVNamespace): CacheStore {
  return {
    async get(key, now) {
      const entry = await kv.get<{ value: string; until: number | null }>(`cache/${key}`, "json");
      return entry && (entry.until === null || entry.until > now.getTime()) ? entry.value : null;
    },
    async put(key, value, now, ttlMs) {
      const until = ttlMs === undefined ? null : now.getTime() + ttlMs;
      const options = ttlMs === undefined ? {} : { expirationTtl: Math.max(60, Math.ceil(ttlMs / 1000)) };
      await kv.put(`cache/${key}`, JSON.stringify({ value, until }), options);
    },
  };
}

/** A Durable Object per account, issuer and type: the unit whose folios are handed out one call at a time. */
export function durableFolioLedgerStore(ns: DurableObjectNamespace<FolioLedger>): FolioLedgerStore {
  const ledger = (account: string, emisor: string, tipo: number) => ns.get(ns.idFromName(ledgerId(account, emisor, tipo)));
  return {
    add: (account, emisor, tipo, range) =>
      addHeld(
        () => ns.get(ns.idFromName(registerId(emisor, tipo))).register(range.desde, range.hasta, account),
        () => ledger(account, emisor, tipo).add(range),
      ),
    ranges: (account, emisor, tipo) => ledger(account, emisor, tipo).ranges(),
    cafOf: (account, emisor, tipo, folio) => ledger(account, emisor, tipo).cafOf(folio),
    allocate: (account, emisor, tipo, count, hold, today) => ledger(account, emisor, tipo).allocate(count, hold, today),
    claim: (account, emisor, tipo, folios, hold, today) => ledger(account, emisor, tipo).claim(folios, hold, today),
    settle: (account, emisor, tipo, hold) => ledger(account, emisor, tipo).settle(hold),
    release: (account, emisor, tipo, hold) => ledger(account, emisor, tipo).release(hold),
    void: (account, emisor, tipo, desde, hasta) => ledger(account, emisor, tipo).void(desde, hasta),
    setThreshold: (account, emisor, tipo, umbral) => ledger(account, emisor, tipo).setThreshold(umbral),
    threshold: (account, emisor, tipo) => ledger(account, emisor, tipo).threshold(),
  };
}
