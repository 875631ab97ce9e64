// The appraisal workbooks as a compact index in the gateway's cache: one ingest per workbook and
// year, then every search answers from the index. Per category, a catalogue (types, makes,
// characteristics with numeric ids) and one shard per vehicle type, since `tipo` is required in
// a search; a shard's text is stored once in a string table and rows are arrays of numbers.
// Values are cut into parts that every store accepts (DynamoDB: 400 KB an item).

import { ApiError } from "../lib/api-error.ts";
import type { CacheStore } from "../ports/stores.ts";
import type { SiiContext } from "./http.ts";
import {
  type AppraisalField,
  type AppraisalValues,
  downloadWorkbook,
  FIELDS,
  FIRST_APPRAISAL_YEAR,
  openAppraisalSheet,
  TEXT_FIELDS,
  type WorkbookKind,
} from "./vehiculos.ts";

export type Categoria = 1 | 2 | 3;

/** The categories clients of other gateways use (1 light, 2 heavy, 3 motorcycles) and the workbook each lives in. */
export const CATEGORIAS: Record<Categoria, { name: string; workbook: WorkbookKind }> = {
  1: { name: "Livianos", workbook: "liv" },
  2: { name: "Pesados", workbook: "pes" },
  3: { name: "Motos", workbook: "liv" },
};

/** Types of the light workbook that are motorcycles (inferred: the SII's workbook mixes them with cars). */
const MOTORCYCLE_TYPES = /^(MOTO|MOTOCICLETA|CUATRIMOTO|SCOOTER|TRIMOTO|BICIMOTO)/;

export { FIELDS };

const TEXT = new Set<AppraisalField>(TEXT_FIELDS);

/** The characteristics listed per category, with ids that do not change between years. */
export const CHARACTERISTICS: { id: number; name: string; field: AppraisalField }[] = [
  { id: 1, name: "Combustible", field: "combustible" },
  { id: 2, name: "Transmisión", field: "transmision" },
  { id: 3, name: "Tracción", field: "traccion" },
  { id: 4, name: "País", field: "pais" },
  { id: 5, name: "Puertas", field: "puertas" },
];

export interface Named {
  id: number;
  name: string;
}

export interface CategoryCatalog {
  tipos: (Named & { vehiculos: number; parts: number })[];
  marcas: Named[];
  caracteristicas: (Named & { data: Named[] })[];
}

export interface WorkbookIndex {
  anio_tasa: number;
  workbook: WorkbookKind;
  vehiculos: number;
  categories: Partial<Record<Categoria, CategoryCatalog>>;
}

export interface Shard {
  strings: string[];
  /** Per row, values in FIELDS order: text as an index into `strings`, numbers as they are. */
  rows: (number | null)[][];
}

const VERSION = "v1";
/** Characters per stored part: at most 3 UTF-8 bytes each, so a part stays under 400 KB. */
export const PART_CHARS = 120_000;
/** A year the SII has not published yet is asked again after this. */
const NOT_PUBLISHED_MS = 60 * 60 * 1000;

const manifestKey = (anio: number, kind: WorkbookKind) => `vehiculos:${VERSION}:${anio}:${kind}`;
const shardKey = (anio: number, categoria: Categoria, tipo: number) => `vehiculos:${VERSION}:${anio}:${categoria}:${tipo}`;

async function putParts(cache: CacheStore, key: string, json: string, now: Date): Promise<number> {
  const parts = Math.max(1, Math.ceil(json.length / PART_CHARS));
  for (let i = 0; i < parts; i++) await cache.put(`${key}:${i}`, json.slice(i * PART_CHARS, (i + 1) * PART_CHARS), now);
  return parts;
}

async function getParts(cache: CacheStore, key: string, parts: number, now: Date): Promise<string | null> {
  const texts = await Promise.all(Array.from({ length: parts }, (_, i) => cache.get(`${key}:${i}`, now)));
  return texts.some((t) => t === null) ? null : texts.join("");
}

/**
 * Parsed manifests and shards per cache store, in this isolate, with their weight in rows: at most
 * about one workbook's worth is kept, so an isolate's memory stays well under Workers' 128 MB.
 */
interface Memo {
  entries: Map<string, { value: unknown; weight: number }>;
  weight: number;
  /** Ingests under way, so concurrent first searches read the workbook once. */
  ingesting: Map<string, Promise<WorkbookIndex | null>>;
}
const memos = new WeakMap<CacheStore, Memo>();
export const MEMO_ROWS = 100_000;

function memoOf(cache: CacheStore): Memo {
  let memo = memos.get(cache);
  if (!memo) {
    memo = { entries: new Map(), weight: 0, ingesting: new Map() };
    memos.set(cache, memo);
  }
  return memo;
}

const remembered = (cache: CacheStore, key: string): unknown => memoOf(cache).entries.get(key)?.value;

function remember(cache: CacheStore, key: string, value: unknown, weight = 1): void {
  const memo = memoOf(cache);
  memo.weight -= memo.entries.get(key)?.weight ?? 0;
  memo.entries.delete(key);
  memo.entries.set(key, { value, weight });
  memo.weight += weight;
  // Oldest first: a Map keeps insertion order.
  for (const [oldKey, old] of memo.entries) {
    if (memo.weight <= MEMO_ROWS || oldKey === key) break;
    memo.entries.delete(oldKey);
    memo.weight -= old.weight;
  }
}

/**
 * What reading a workbook costs the caller that reads it, told the sheet's rows before any is read
 * (a rejection stops the read: nothing is built, nothing stored).
 */
export type PayForRows = (rows: number) => Promise<void>;

const isQuotaRefusal = (err: unknown) => err instanceof ApiError && err.code === "QUOTA_EXCEEDED";

/**
 * The index of a workbook, ingesting it first when the cache does not have it (or, with `again`,
 * when a part of it went missing); null when the SII has not published that workbook. Only the
 * call that reads the workbook pays (`pay`); one waiting for another's read does not.
 */
export async function workbookIndex(
  ctx: SiiContext,
  cache: CacheStore,
  now: Date,
  kind: WorkbookKind,
  anio: number,
  again = false,
  pay: PayForRows = async () => {},
): Promise<WorkbookIndex | null> {
  const key = manifestKey(anio, kind);
  const known = again ? undefined : (remembered(cache, key) as WorkbookIndex | undefined);
  if (known) return known;
  const stored = again ? null : await cache.get(key, now);
  if (stored !== null) {
    const index = JSON.parse(stored) as WorkbookIndex | null;
    if (index) remember(cache, key, index);
    return index;
  }
  const { ingesting } = memoOf(cache);
  const running = ingesting.get(key);
  if (running) {
    // Another call's read: its caller pays. If it could not, this call reads the workbook itself.
    try {
      return await running;
    } catch (err) {
      if (!isQuotaRefusal(err)) throw err;
      return workbookIndex(ctx, cache, now, kind, anio, again, pay);
    }
  }
  const own = ingest(ctx, cache, now, kind, anio, pay).finally(() => ingesting.delete(key));
  ingesting.set(key, own);
  return own;
}

interface ShardBuilder {
  categoria: Categoria;
  tipo: string;
  strings: Map<string, number>;
  rows: (number | null)[][];
  /** Its category's makes and characteristics, which its rows add to. */
  values: CategoryValues;
}

/** A category's makes and the values of each of its characteristics (CHARACTERISTICS' order). */
interface CategoryValues {
  makes: Set<string>;
  traits: Set<string | number>[];
}

const unreadable = (kind: WorkbookKind, anio: number, err: unknown) =>
  err instanceof ApiError
    ? err
    : new ApiError(502, "SII_GATEWAY_ERROR", "The SII's appraisal workbook could not be read", {
        details: { service: "vehiculos", workbook: `${kind}${anio}.xlsx`, reason: err instanceof Error ? err.message : String(err) },
      });

async function ingest(
  ctx: SiiContext,
  cache: CacheStore,
  now: Date,
  kind: WorkbookKind,
  anio: number,
  pay: PayForRows,
): Promise<WorkbookIndex | null> {
  const workbook = await downloadWorkbook(ctx, kind, anio);
  const key = manifestKey(anio, kind);
  if (workbook === null) {
    // Past years the SII has not published never will be; this year's may come later.
    await cache.put(key, "null", now, anio < now.getUTCFullYear() ? undefined : NOT_PUBLISHED_MS);
    return null;
  }
  const sheet = await openAppraisalSheet(workbook).catch((err) => {
    throw unreadable(kind, anio, err);
  });
  await pay(sheet.rows);
  const shards = new Map<string, ShardBuilder>();
  const values = new Map<Categoria, CategoryValues>();
  let count = 0;
  try {
    for await (const batch of sheet.vehicles()) {
      for (const row of batch) {
        const tipo = (row[TIPO] as string | null) ?? "SIN TIPO";
        let shard = shards.get(tipo);
        if (!shard) {
          const categoria: Categoria = kind === "pes" ? 2 : MOTORCYCLE_TYPES.test(tipo) ? 3 : 1;
          shard = { categoria, tipo, strings: new Map(), rows: [], values: valuesOf(values, categoria) };
          shards.set(tipo, shard);
        }
        const own = shard.values;
        const marca = row[MARCA];
        if (typeof marca === "string") own.makes.add(marca);
        for (let i = 0; i < TRAITS_AT.length; i++) {
          const value = row[TRAITS_AT[i] as number];
          if (value !== null && value !== undefined) own.traits[i]?.add(value);
        }
        shard.rows.push(encodeRow(shard.strings, row));
        count++;
      }
    }
  } catch (err) {
    throw unreadable(kind, anio, err);
  }

  const index: WorkbookIndex = { anio_tasa: anio, workbook: kind, vehiculos: count, categories: {} };
  for (const categoria of [1, 2, 3] as Categoria[]) {
    const own = [...shards.values()].filter((s) => s.categoria === categoria).sort((a, b) => compareText(a.tipo, b.tipo));
    if (own.length === 0) continue;
    const found = values.get(categoria);
    const catalog: CategoryCatalog = {
      tipos: [],
      marcas: numbered([...(found?.makes ?? [])]),
      caracteristicas: CHARACTERISTICS.flatMap(({ id, name }, i) => {
        const seen = found?.traits[i];
        return seen && seen.size > 0 ? [{ id, name, data: numbered([...new Set([...seen].map(String))]) }] : [];
      }),
    };
    for (const [i, builder] of own.entries()) {
      const shard = sortedShard(builder);
      // Not kept in memory from here: rows parsed back from JSON scan 3-4 times faster than these.
      const parts = await putParts(cache, shardKey(anio, categoria, i + 1), JSON.stringify(shard), now);
      catalog.tipos.push({ id: i + 1, name: builder.tipo, vehiculos: shard.rows.length, parts });
    }
    index.categories[categoria] = catalog;
  }
  // The manifest goes last: a reader that finds it finds every shard it names.
  await cache.put(key, JSON.stringify(index), now);
  remember(cache, key, index);
  return index;
}

function valuesOf(map: Map<Categoria, CategoryValues>, categoria: Categoria): CategoryValues {
  let values = map.get(categoria);
  if (!values) {
    values = { makes: new Set(), traits: CHARACTERISTICS.map(() => new Set()) };
    map.set(categoria, values);
  }
  return values;
}

/** Numbers sort as numbers (doors), text alphabetically; ids follow that order from 1. */
function numbered(values: string[]): Named[] {
  const numeric = values.every((v) => /^\d+(\.\d+)?$/.test(v));
  const sorted = numeric ? values.sort((a, b) => Number(a) - Number(b)) : values.sort(compareText);
  return sorted.map((name, i) => ({ id: i + 1, name }));
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const IS_TEXT = FIELDS.map((field) => TEXT.has(field));
const TIPO = FIELDS.indexOf("tipo");
const MARCA = FIELDS.indexOf("marca");
const TRAITS_AT = CHARACTERISTICS.map(({ field }) => FIELDS.indexOf(field));

/** A vehicle's values as the index stores them, in place: each text as its index in the shard's `strings`. */
function encodeRow(strings: Map<string, number>, row: AppraisalValues): (number | null)[] {
  for (let i = 0; i < row.length; i++) {
    const value = row[i];
    if (value === null || value === undefined || !IS_TEXT[i]) continue;
    let index = strings.get(value as string);
    if (index === undefined) {
      index = strings.size;
      strings.set(value as string, index);
    }
    row[i] = index;
  }
  return row as (number | null)[];
}

const at = (field: AppraisalField) => FIELDS.indexOf(field);
/** Search results come in this order: make, model, version, year, code. */
const ORDER: { index: number; text: boolean }[] = (["marca", "modelo", "version", "anio", "codigo"] as const).map((field) => ({
  index: at(field),
  text: TEXT.has(field),
}));

function sortedShard(builder: ShardBuilder): Shard {
  const strings = [...builder.strings.keys()];
  // Each text's place in alphabetical order, found once: rows then compare numbers, not texts.
  const rank = new Array<number>(strings.length);
  strings
    .map((_, i) => i)
    .sort((a, b) => compareText(strings[a] ?? "", strings[b] ?? ""))
    .forEach((index, place) => {
      rank[index] = place;
    });
  const rows = builder.rows.sort((a, b) => {
    for (let k = 0; k < ORDER.length; k++) {
      const { index, text } = ORDER[k] as (typeof ORDER)[number];
      const x = a[index] ?? null;
      const y = b[index] ?? null;
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return text ? (rank[x] ?? 0) - (rank[y] ?? 0) : x - y;
    }
    return 0;
  });
  return { strings, rows };
}

/** One type's vehicles of a category, sorted; null when the store no longer has all of it. */
export async function loadShard(
  cache: CacheStore,
  now: Date,
  anio: number,
  categoria: Categoria,
  tipo: CategoryCatalog["tipos"][number],
): Promise<Shard | null> {
  const key = shardKey(anio, categoria, tipo.id);
  const known = remembered(cache, key) as Shard | undefined;
  if (known) return known;
  const json = await getParts(cache, key, tipo.parts, now);
  if (json === null) return null;
  const shard = JSON.parse(json) as Shard;
  remember(cache, key, shard, shard.rows.length);
  return shard;
}

/** A stored row as the vehicle it describes. */
export function decodeRow(shard: Shard, row: (number | null)[]): Record<AppraisalField, string | number | null> {
  const vehicle = {} as Record<AppraisalField, string | number | null>;
  FIELDS.forEach((field, i) => {
    const value = row[i] ?? null;
    vehicle[field] = value === null ? null : TEXT.has(field) ? (shard.strings[value] ?? null) : value;
  });
  return vehicle;
}

export interface CatalogView {
  anio: number;
  index: WorkbookIndex;
  catalog: CategoryCatalog;
}

/**
 * A category's catalogue for `anioTasa`, or for the newest published year when it is not given.
 * 404 when the SII has not published that year's workbook, or it has no vehicle of the category.
 */
export async function categoryCatalog(
  ctx: SiiContext,
  cache: CacheStore,
  now: Date,
  categoria: Categoria,
  anioTasa: number | undefined,
  again = false,
  pay?: PayForRows,
): Promise<CatalogView> {
  const kind = CATEGORIAS[categoria].workbook;
  const thisYear = now.getUTCFullYear();
  let anio = anioTasa ?? thisYear;
  let index = await workbookIndex(ctx, cache, now, kind, anio, again, pay);
  if (index === null && anioTasa === undefined && anio > FIRST_APPRAISAL_YEAR) {
    anio = thisYear - 1;
    index = await workbookIndex(ctx, cache, now, kind, anio, again, pay);
  }
  if (index === null) {
    throw new ApiError(
      404,
      "HTTP_404",
      `The SII has not published the ${kind === "liv" ? "light" : "heavy"} vehicle appraisal workbook of ${anio}`,
      {
        details: { anio_tasa: anio, workbook: `${kind}${anio}.xlsx` },
      },
    );
  }
  const catalog = index.categories[categoria];
  if (!catalog) {
    throw new ApiError(404, "HTTP_404", `The SII's appraisal workbook of ${anio} has no vehicle of categoria ${categoria}`, {
      details: { anio_tasa: anio, categoria },
    });
  }
  return { anio, index, catalog };
}
