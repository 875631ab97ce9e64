// The cache of what the SII publishes, in KV.
import type { CacheStore } from "../../ports/stores.ts";

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
