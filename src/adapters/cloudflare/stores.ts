// Cloudflare adapters: tokens and settings in KV (read at the edge, rarely written), quota and
// idempotency in Durable Objects (exact under concurrency).
import type {
  CacheStore,
  FolioLedgerStore,
  IdempotencyStore,
  QuotaStore,
  SessionStore,
  SettingsStore,
  TokenRecord,
  TokenStore,
} from "../../ports.ts";
import { ledgerId } from "../folio-ledger.ts";
import type { FolioLedger, IdempotencyLedger, QuotaCounter, SiiSessions } from "./durable-objects.ts";

// KV is eventually consistent across locations: a block or revoke reaches every edge within
// about a minute (KV's cache time). Writes from this location are visible here at once.
export function kvTokenStore(kv: KVNamespace): TokenStore {
  return {
    async put(record) {
      const previous = await kv.get<TokenRecord>(`id:${record.id}`, "json");
      if (previous && previous.token_hash !== record.token_hash) await kv.delete(`hash:${previous.token_hash}`);
      await kv.put(`id:${record.id}`, JSON.stringify(record));
      await kv.put(`hash:${record.token_hash}`, record.id);
    },
    async getById(id) {
      return kv.get<TokenRecord>(`id:${id}`, "json");
    },
    async getByHash(hash) {
      const id = await kv.get(`hash:${hash}`);
      if (!id) return null;
      const record = await kv.get<TokenRecord>(`id:${id}`, "json");
      return record?.token_hash === hash ? record : null;
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
      return true;
    },
  };
}

export function kvSettingsStore(kv: KVNamespace): SettingsStore {
  const name = (account: string, key: string) => `${encodeURIComponent(account)}/${encodeURIComponent(key)}`;
  return {
    get: (account, key) => kv.get(name(account, key), "json"),
    put: (account, key, value) => kv.put(name(account, key), JSON.stringify(value)),
    delete: (account, key) => kv.delete(name(account, key)),
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

export function durableIdempotencyStore(ns: DurableObjectNamespace<IdempotencyLedger>): IdempotencyStore {
  const ledger = (account: string) => ns.get(ns.idFromName(account));
  return {
    begin: (account, key, fingerprint, now, leaseMs, maxStored) =>
      ledger(account).begin(key, fingerprint, now.getTime(), leaseMs, maxStored),
    complete: (account, key, fingerprint, response, now, ttlMs) =>
      ledger(account).complete(key, fingerprint, response, now.getTime(), ttlMs),
    abandon: (account, key, fingerprint) => ledger(account).abandon(key, fingerprint),
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
    add: (account, emisor, tipo, range) => ledger(account, emisor, tipo).add(range),
    ranges: (account, emisor, tipo) => ledger(account, emisor, tipo).ranges(),
    cafOf: (account, emisor, tipo, folio) => ledger(account, emisor, tipo).cafOf(folio),
    allocate: (account, emisor, tipo, count, key, today) => ledger(account, emisor, tipo).allocate(count, key, today),
    claim: (account, emisor, tipo, folios, key, today) => ledger(account, emisor, tipo).claim(folios, key, today),
    release: (account, emisor, tipo, folios) => ledger(account, emisor, tipo).release(folios),
    void: (account, emisor, tipo, desde, hasta) => ledger(account, emisor, tipo).void(desde, hasta),
    setThreshold: (account, emisor, tipo, umbral) => ledger(account, emisor, tipo).setThreshold(umbral),
    threshold: (account, emisor, tipo) => ledger(account, emisor, tipo).threshold(),
  };
}
