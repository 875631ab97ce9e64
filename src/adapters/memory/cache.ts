// In-memory cache: for unit tests and single-process experiments. Synchronous inside each method,
// so each call is atomic on its own.
import type { CacheStore } from "../../ports/stores.ts";

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
