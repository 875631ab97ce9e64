// Published indicators never change: a year whose page is complete is cached for good; a year
// still being published is re-read at most hourly. An entry holds a year's table (UF, correction)
// or one month of it (the second-category tax, read a month at a time).
import type { CacheStore, Deps } from "../ports.ts";

export const REREAD_MS = 60 * 60 * 1000;

/** Parsed entries per cache store, in this isolate: the store is read and parsed once per entry, not per request. */
const parsed = new WeakMap<CacheStore, Map<string, { value: unknown; until: number }>>();
const MEMO_LIMIT = 256;

export async function cachedYear<T>(
  deps: Deps,
  key: string,
  load: () => Promise<T | null>,
  complete: (value: T) => boolean,
): Promise<T | null> {
  const { cache, clock } = deps;
  const now = clock.now();
  let memo = parsed.get(cache);
  if (!memo) {
    memo = new Map();
    parsed.set(cache, memo);
  }
  const remembered = memo.get(key);
  if (remembered && remembered.until > now.getTime()) return remembered.value as T | null;

  const hit = await cache.get(key, now);
  const value = hit !== null ? (JSON.parse(hit) as T | null) : await load();
  const final = value !== null && complete(value);
  if (hit === null) await cache.put(key, JSON.stringify(value), now, final ? undefined : REREAD_MS);
  if (memo.size >= MEMO_LIMIT) memo.clear();
  // A complete year never changes; one still being published is looked at again within the hour.
  memo.set(key, { value, until: final ? Number.POSITIVE_INFINITY : now.getTime() + REREAD_MS });
  return value;
}
