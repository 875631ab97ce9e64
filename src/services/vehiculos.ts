// The vehicle appraisals, with no HTTP: a category's catalogue from the index of the SII's yearly
// workbook (src/sii/vehiculos-index.ts ingests it the first time, the caller paying its rows), the
// lists built from it, and the search over a type's shard (filters, sort order kept, one page).
import type { Caller } from "../platform/caller.ts";
import { ApiError, type FieldError } from "../platform/errors.ts";
import {
  CATEGORIAS,
  type CatalogView,
  type Categoria,
  type CategoryCatalog,
  categoryCatalog,
  decodeRow,
  FIELDS,
  loadShard,
  type Shard,
} from "../sii/vehiculos-index.ts";
import { siiServicesFor } from "./sii-context.ts";

/**
 * Rows of the SII's workbook one unit pays for when a call reads it into the index. Reading and
 * indexing take 16–21 ms of CPU per 1 000 rows on the benchmark's 2-core machine with nothing else
 * running (`npm run bench -- --cost=vehiculos/`), under twice a median unit; a unit per 2 000 rows
 * was three to six times. A workbook of up to 1 000 rows costs the operations' weight.
 */
export const WORKBOOK_ROWS_PER_UNIT = 1_000;

/** What reading a workbook of `rows` rows (its sheet's, title block and header included) costs in all. */
export const workbookUnits = (rows: number) => Math.max(1, Math.ceil(rows / WORKBOOK_ROWS_PER_UNIT));

/** Vehicles per page when a search names none. */
export const DEFAULT_POR_PAGINA = 50;

const isCategoria = (value: number): value is Categoria => value === 1 || value === 2 || value === 3;

/** The category as the index knows it; the operations' schemas let only 1 to 3 through. */
function categoryOf(value: number): Categoria {
  if (!isCategoria(value)) throw new Error("the operations' schemas guarantee categoria 1 to 3");
  return value;
}

/**
 * A category's catalogue (see `categoryCatalog` in src/sii/vehiculos-index.ts) for a caller whose
 * operation weighs `weight`: should it read the workbook, the caller pays the rows beyond that first.
 */
async function catalogFor(
  caller: Caller,
  categoria: Categoria,
  anioTasa: number | undefined,
  weight: number,
  again = false,
): Promise<CatalogView> {
  const { cache, clock } = caller.deps;
  const pay = async (rows: number) => {
    const more = workbookUnits(rows) - weight;
    if (more > 0) await caller.charge(more, "this call");
  };
  return categoryCatalog((await siiServicesFor(caller)).ctx, cache, clock.now(), categoria, anioTasa, again, pay);
}

/** The lists a category's catalogue gives, each as its operation answers it. */
const LISTS = {
  tipos: (catalog: CategoryCatalog) => catalog.tipos.map(({ id, name }) => ({ id, name })),
  marcas: (catalog: CategoryCatalog) => catalog.marcas,
  caracteristicas: (catalog: CategoryCatalog) => catalog.caracteristicas,
};

export type CategoryListName = keyof typeof LISTS;

/** `{categoria, anio, <list>: [...]}`: the list of a category with the appraisal year it comes from. */
export async function categoryList(
  caller: Caller,
  list: CategoryListName,
  categoria: number,
  anioTasa: number | undefined,
  weight: number,
) {
  const view = await catalogFor(caller, categoryOf(categoria), anioTasa, weight);
  return { categoria, anio: view.anio, [list]: LISTS[list](view.catalog) };
}

/** A search as its operation's body gives it (the schema has checked each field). */
export interface VehicleSearch {
  categoria: number;
  tipo: number | string;
  anio?: number;
  anio_tasa?: number;
  marca?: number | string;
  modelo?: string;
  version?: string;
  pagina?: number;
  por_pagina?: number;
}

/** Upper case, no accents, single spaces: how names are compared. */
const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toUpperCase()
    .replace(/\s+/g, " ")
    .trim();

const problem = (path: string, message: string): FieldError => ({ path, location: "body", message });

/** Each shard's strings folded once, for every later search of this isolate. */
const foldedByShard = new WeakMap<Shard, string[]>();

function foldedStrings(shard: Shard): string[] {
  let folded = foldedByShard.get(shard);
  if (!folded) {
    folded = shard.strings.map(fold);
    foldedByShard.set(shard, folded);
  }
  return folded;
}

/** The row positions matching the filters, in the shard's (sorted) order. */
function matching(shard: Shard, search: VehicleSearch, marca: string | null): (number | null)[][] {
  const folded = foldedStrings(shard);
  const contains = (field: "modelo" | "version", wanted: string | undefined) => {
    if (wanted === undefined || wanted.trim() === "") return null;
    const needle = fold(wanted);
    const index = FIELDS.indexOf(field);
    return (row: (number | null)[]) => {
      const value = row[index];
      return value !== null && value !== undefined && (folded[value] ?? "").includes(needle);
    };
  };
  const tests: ((row: (number | null)[]) => boolean)[] = [];
  if (search.anio !== undefined) tests.push((row) => row[FIELDS.indexOf("anio")] === search.anio);
  const marcaAt = FIELDS.indexOf("marca");
  if (marca !== null) tests.push((row) => folded[row[marcaAt] ?? -1] === marca);
  for (const test of [contains("modelo", search.modelo), contains("version", search.version)]) if (test) tests.push(test);
  return shard.rows.filter((row) => tests.every((test) => test(row)));
}

/** The type `tipo` names (its id or its name) in the catalogue. */
const typeIn = (view: CatalogView, tipo: number | string) =>
  view.catalog.tipos.find((t) => (typeof tipo === "number" ? t.id === tipo : fold(t.name) === fold(tipo)));

/**
 * The type's catalogue entry and its shard. A shard gone missing from storage has the workbook
 * read again, once; an index that still lacks it is a 502.
 */
async function typeShard(caller: Caller, categoria: Categoria, search: VehicleSearch, weight: number) {
  const { cache, clock } = caller.deps;
  let view = await catalogFor(caller, categoria, search.anio_tasa, weight);
  let found = typeIn(view, search.tipo);
  if (!found) {
    throw new ApiError(400, "VALIDATION_ERROR", `tipo ${search.tipo} is not a type of categoria ${categoria} in ${view.anio}`, {
      errors: [problem("tipo", `see GET /api/v1/sii/vehiculos/categorias/tipos/${categoria} for the types of ${view.anio}`)],
    });
  }
  let shard = await loadShard(cache, clock.now(), view.anio, categoria, found);
  if (!shard) {
    view = await catalogFor(caller, categoria, view.anio, weight, true);
    found = typeIn(view, search.tipo);
    shard = found ? await loadShard(cache, clock.now(), view.anio, categoria, found) : null;
    if (!found || !shard)
      throw new ApiError(502, "SII_GATEWAY_ERROR", "The appraisal index could not be rebuilt", { details: { service: "vehiculos" } });
  }
  return { view, tipo: found, shard };
}

/** One page of the vehicles matching `search`, sorted by make, model, version, year and code (the shard's order). */
export async function searchVehicles(caller: Caller, search: VehicleSearch, weight: number) {
  const categoria = categoryOf(search.categoria);
  const { view, tipo, shard } = await typeShard(caller, categoria, search, weight);
  const marca =
    search.marca === undefined
      ? null
      : fold(typeof search.marca === "number" ? (view.catalog.marcas.find((m) => m.id === search.marca)?.name ?? "\u0000") : search.marca);
  const rows = matching(shard, search, marca);
  const porPagina = search.por_pagina ?? DEFAULT_POR_PAGINA;
  const pagina = search.pagina ?? 1;
  return {
    anio_tasa: view.anio,
    categoria: { id: categoria, name: CATEGORIAS[categoria].name },
    tipo: { id: tipo.id, name: tipo.name },
    total: rows.length,
    pagina,
    por_pagina: porPagina,
    paginas: Math.ceil(rows.length / porPagina),
    vehiculos: rows.slice((pagina - 1) * porPagina, pagina * porPagina).map((row) => decodeRow(shard, row)),
  };
}
