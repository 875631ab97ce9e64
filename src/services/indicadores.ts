// The indicator operations, with no HTTP: the UF of a date, the year's monetary correction and a
// month's second-category tax brackets, read from the SII's public yearly pages (src/sii/indicadores.ts)
// and cached. Published indicators never change: a year whose page is complete is cached for good;
// a year still being published is re-read at most hourly. An entry holds a year's table (UF,
// correction) or one month of it (the second-category tax, read a month at a time).
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import type { Deps } from "../ports/deps.ts";
import type { CacheStore } from "../ports/stores.ts";
import { correccionYear, segundaCategoriaMonth, ufYear } from "../sii/indicadores.ts";
import { siiServicesFor } from "./sii-context.ts";

export const REREAD_MS = 60 * 60 * 1000;

/**
 * Characters of the SII's yearly UF page one unit pays for when a call reads it (a cache miss): the
 * page is built into a document, about 0.8 ms of CPU a KiB on the benchmark's 2-core machine, and
 * the sandbox's 21 KB page cost 25–35 ms for its 1 unit, the dearest unit of the table
 * (bench/README.md "CPU per quota unit"). A call answered from the cache pays its weight.
 */
export const UF_PAGE_CHARS_PER_UNIT = 16 * 1024;

/** What reading a UF page of `chars` characters costs in all (at least the operation's weight, 1). */
export const ufPageUnits = (chars: number) => Math.max(1, Math.ceil(chars / UF_PAGE_CHARS_PER_UNIT));

/** Parsed entries per cache store, in this isolate: the store is read and parsed once per entry, not per request. */
const parsed = new WeakMap<CacheStore, Map<string, { value: unknown; until: number }>>();
const MEMO_LIMIT = 256;

async function cachedYear<T>(deps: Deps, key: string, load: () => Promise<T | null>, complete: (value: T) => boolean): Promise<T | null> {
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

/** The UF of `anio`-`mes`-`dia`: 400 naming `dia` when the month has no such day, 404 when not published. */
export async function ufOfDate(caller: Caller, anio: number, mes: number, dia: number) {
  const date = new Date(Date.UTC(anio, mes - 1, dia));
  if (date.getUTCMonth() !== mes - 1) {
    throw new ApiError(400, "VALIDATION_ERROR", `${anio}-${mes}-${dia} is not a date`, {
      errors: [{ path: "dia", location: "path", message: `month ${mes} of ${anio} has no day ${dia}` }],
    });
  }
  const fecha = date.toISOString().slice(0, 10);
  const { ctx } = await siiServicesFor(caller);
  const pay = async (chars: number) => {
    const more = ufPageUnits(chars) - 1;
    if (more > 0) await caller.charge(more, `reading the SII's UF page of ${anio} (${chars} characters)`);
  };
  const year = await cachedYear(
    caller.deps,
    `uf:${anio}`,
    () => ufYear(ctx, anio, pay),
    (y) => y[12]?.[31] !== undefined,
  );
  const valor = year?.[mes]?.[dia];
  if (valor === undefined) throw new ApiError(404, "HTTP_404", `The SII has not published the UF of ${fecha}`, { details: { fecha } });
  return { fecha, valor };
}

/** The year's monetary-correction matrix, months in order; 404 when the SII has not published it. */
export async function monetaryCorrection(caller: Caller, anio: number) {
  const { ctx } = await siiServicesFor(caller);
  // The key names the matrix reading: a table cached by the former column reading is not served again.
  const year = await cachedYear(
    caller.deps,
    `correccion-matriz:${anio}`,
    () => correccionYear(ctx, anio),
    (y) => y.meses.length === 12 && y.meses.every((x) => x.factor !== null),
  );
  if (!year) throw new ApiError(404, "HTTP_404", `The SII has not published the monetary correction of ${anio}`);
  return { anio, capital_inicial: year.capital_inicial, meses: [...year.meses].sort((a, b) => a.mes - b.mes) };
}

/** The month's second-category tax brackets per pay period; 404 when the SII has not published them. */
export async function secondCategoryBrackets(caller: Caller, anio: number, mes: number) {
  const { ctx } = await siiServicesFor(caller);
  // One entry a month (its page's section alone is read); a month of a year whose December is out is final.
  const read = await cachedYear(
    caller.deps,
    `segunda-categoria:${anio}:${mes}`,
    () => segundaCategoriaMonth(ctx, anio, mes),
    (r) => r.published.includes(12),
  );
  const month = read?.month;
  if (!month)
    throw new ApiError(
      404,
      "HTTP_404",
      `The SII has not published the second-category tax table of ${anio}-${String(mes).padStart(2, "0")}`,
    );
  return { anio, mes, ...month };
}
