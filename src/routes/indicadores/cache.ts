// Published indicators never change: a year whose page is complete is cached for good; a year
// still being published is re-read at most hourly. An entry holds a year's table (UF, correction)
// or one month of it (the second-category tax, read a month at a time).
import type { Context } from "hono";
import type { AppEnv } from "../../platform/context.ts";
import { IntegerParam } from "../../platform/params.ts";
import type { CacheStore } from "../../ports.ts";

export const REREAD_MS = 60 * 60 * 1000;

/** Parsed entries per cache store, in this isolate: the store is read and parsed once per entry, not per request. */
const parsed = new WeakMap<CacheStore, Map<string, { value: unknown; until: number }>>();
const MEMO_LIMIT = 256;

export async function cachedYear<T>(
  c: Context<AppEnv>,
  key: string,
  load: () => Promise<T | null>,
  complete: (value: T) => boolean,
): Promise<T | null> {
  const { cache, clock } = c.get("deps");
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

/** The years the indicator operations take. */
export const FIRST_YEAR = 1900;
export const LAST_YEAR = 2100;

/** The year of a published table (`anio`). */
export const Anio = IntegerParam({
  min: FIRST_YEAR,
  max: LAST_YEAR,
  noun: "a year",
  example: 2025,
  description: `Year, ${FIRST_YEAR} to ${LAST_YEAR}; a year the SII has not published is a 404`,
});

/** A month, 1 to 12 (`mes`). */
export const Mes = IntegerParam({ min: 1, max: 12, noun: "a month", example: 3, description: "Month, 1 (January) to 12 (December)" });
