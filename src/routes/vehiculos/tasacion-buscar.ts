// POST /api/v1/sii/vehiculos/tasacion/buscar: the SII's fiscal appraisal of vehicles, searched in
// the index of its yearly workbook (never downloaded again for a search). `categoria` and `tipo`
// are required, with the messages clients of other gateways know; results are sorted by make,
// model, version, year and code, and paginated.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError, type FieldError } from "../../platform/errors.ts";
import { registerOperation } from "../../platform/operation.ts";
import { MAX_CHARS } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { FIRST_APPRAISAL_YEAR } from "../../sii/vehiculos.ts";
import { CATEGORIAS, type Categoria, decodeRow, FIELDS, loadShard, type Shard } from "../../sii/vehiculos-index.ts";
import { CATEGORIA_TEXT, catalogFor, isCategoria, LAST_APPRAISAL_YEAR, Named, TAGS, workbookRule } from "./schema.ts";

export const MAX_POR_PAGINA = 500;
const WEIGHT = 2;
const DEFAULT_POR_PAGINA = 50;

/** The earliest model year a search takes. */
const FIRST_MODEL_YEAR = 1900;

const IdOrName = z.union([z.number().int(), z.string().min(1).max(MAX_CHARS.name)]);

/** The message for an absent required field, in the words clients of other gateways know; zod's otherwise. */
const missing = (message: string) => (issue: { input: unknown }) => (issue.input === undefined ? message : undefined);

/** The ranges of the search. */
const range = (min: number, max: number) => ({ error: `must be ${min} to ${max}` });

const Body = z
  .object({
    categoria: z
      .number({ error: missing("Debe especificar la categoría del vehículo.") })
      .int()
      .min(1, { error: `must be 1, 2 or 3: ${CATEGORIA_TEXT}` })
      .max(3, { error: `must be 1, 2 or 3: ${CATEGORIA_TEXT}` })
      .register(z.globalRegistry, { description: CATEGORIA_TEXT, example: 1 }),
    tipo: z
      .union([z.number().int(), z.string().min(1).max(MAX_CHARS.name)], { error: missing("Debe especificar el tipo de vehículo.") })
      .register(z.globalRegistry, {
        description: "A type's id from `categorias/tipos/{categoria}`, or its name (`CAMIONETA`)",
        example: 3,
      }),
    anio: z
      .number()
      .int()
      .min(FIRST_MODEL_YEAR, range(FIRST_MODEL_YEAR, LAST_APPRAISAL_YEAR))
      .max(LAST_APPRAISAL_YEAR, range(FIRST_MODEL_YEAR, LAST_APPRAISAL_YEAR))
      .optional()
      .register(z.globalRegistry, { description: `Model year, ${FIRST_MODEL_YEAR} to ${LAST_APPRAISAL_YEAR}`, example: 2017 }),
    anio_tasa: z
      .number()
      .int()
      .min(FIRST_APPRAISAL_YEAR, { error: `must be ${FIRST_APPRAISAL_YEAR} to ${LAST_APPRAISAL_YEAR} (earlier workbooks are not XLSX)` })
      .max(LAST_APPRAISAL_YEAR, range(FIRST_APPRAISAL_YEAR, LAST_APPRAISAL_YEAR))
      .optional()
      .register(z.globalRegistry, {
        description: `Year of the appraisal, ${FIRST_APPRAISAL_YEAR} (the first XLSX workbook) to ${LAST_APPRAISAL_YEAR}. Default: this year's, or last year's while this year's is not published`,
        example: 2026,
      }),
    marca: IdOrName.optional().meta({ description: "A make's id from `categorias/marcas/{categoria}`, or its name", example: "SUZUKI" }),
    modelo: z
      .string()
      .max(MAX_CHARS.name)
      .optional()
      .register(z.globalRegistry, { description: "Part of the model's name (case and accents ignored)", example: "VITARA" }),
    version: z
      .string()
      .max(MAX_CHARS.name)
      .optional()
      .register(z.globalRegistry, { description: "Part of the version's name (case and accents ignored)", example: "AT" }),
    pagina: z
      .number()
      .int()
      .min(1, { error: "must be 1 or more" })
      .optional()
      .register(z.globalRegistry, { description: "Page, from 1 (default 1)", example: 1 }),
    por_pagina: z
      .number()
      .int()
      .min(1, range(1, MAX_POR_PAGINA))
      .max(MAX_POR_PAGINA, range(1, MAX_POR_PAGINA))
      .optional()
      .register(z.globalRegistry, {
        description: `Vehicles per page, 1 to ${MAX_POR_PAGINA} (default ${DEFAULT_POR_PAGINA})`,
        example: 50,
      }),
  })
  .openapi("VehiculoTasacionBuscar");

const nullableText = z.string().nullable();
const nullableNumber = z.number().nullable();

const Vehicle = z
  .object({
    codigo: z.string().register(z.globalRegistry, { description: "Código SII", example: "SU2290241" }),
    anio: z.number().int().register(z.globalRegistry, { description: "Model year" }),
    tipo: z.string(),
    marca: z.string(),
    modelo: z.string(),
    version: nullableText,
    puertas: nullableNumber,
    cilindrada: nullableNumber.meta({ description: "cc" }),
    potencia: nullableNumber.meta({ description: "hp (light vehicles only)" }),
    combustible: nullableText,
    transmision: nullableText,
    marchas: nullableNumber,
    traccion: nullableText,
    pais: nullableText,
    equipamiento: nullableText.meta({ description: "Abbreviations, explained in the workbook's Siglas sheet" }),
    carga: nullableNumber.meta({ description: "kg" }),
    pasajeros: nullableNumber,
    tasacion: nullableNumber.meta({ description: "Fiscal appraisal, CLP" }),
    permiso: nullableNumber.meta({ description: "Circulation permit, CLP (light vehicles only)" }),
    observacion: nullableText,
  })
  .openapi("VehiculoTasacion");

export const Result = envelope(
  z
    .object({
      anio_tasa: z.number().int(),
      categoria: Named,
      tipo: Named,
      total: z.number().int().register(z.globalRegistry, { description: "Vehicles matching the filters" }),
      pagina: z.number().int(),
      por_pagina: z.number().int(),
      paginas: z.number().int(),
      vehiculos: z.array(Vehicle),
    })
    .openapi("VehiculoTasacionResultado"),
);

type Filters = z.output<typeof Body>;

/** Upper case, no accents, single spaces: how names are compared. */
const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toUpperCase()
    .replace(/\s+/g, " ")
    .trim();

const problem = (path: string, message: string): FieldError => ({ path, location: "body", message });

/** The schema has checked that `categoria` is 1 to 3. */
function required(body: Filters): { categoria: Categoria; tipo: number | string } {
  if (!isCategoria(body.categoria)) throw new Error("the body schema guarantees categoria 1 to 3");
  return { categoria: body.categoria, tipo: body.tipo };
}

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
function matching(shard: Shard, body: Filters, marca: string | null): (number | null)[][] {
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
  if (body.anio !== undefined) tests.push((row) => row[FIELDS.indexOf("anio")] === body.anio);
  const marcaAt = FIELDS.indexOf("marca");
  if (marca !== null) tests.push((row) => folded[row[marcaAt] ?? -1] === marca);
  for (const test of [contains("modelo", body.modelo), contains("version", body.version)]) if (test) tests.push(test);
  return shard.rows.filter((row) => tests.every((test) => test(row)));
}

export function registerVehiculosTasacionBuscar(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/vehiculos/tasacion/buscar",
      tags: TAGS,
      summary: "Search the fiscal appraisal of vehicles",
      description: `From the SII's yearly appraisal workbooks (light and heavy vehicles), read once per year into the gateway's storage: the first search of a year reads the workbook, later ones answer from the index. \`categoria\` and \`tipo\` are required. Sorted by make, model, version, year and code. ${workbookRule(WEIGHT)}`,
      request: { body: jsonBody(Body) },
      responses: { 200: jsonContent(Result, "The matching vehicles, one page"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: WEIGHT },
    async (c) => {
      const body = c.req.valid("json");
      const { categoria, tipo } = required(body);
      let view = await catalogFor(c, categoria, body.anio_tasa, WEIGHT);
      const findTipo = () => view.catalog.tipos.find((t) => (typeof tipo === "number" ? t.id === tipo : fold(t.name) === fold(tipo)));
      let found = findTipo();
      if (!found) {
        throw new ApiError(400, "VALIDATION_ERROR", `tipo ${tipo} is not a type of categoria ${categoria} in ${view.anio}`, {
          errors: [problem("tipo", `see GET /api/v1/sii/vehiculos/categorias/tipos/${categoria} for the types of ${view.anio}`)],
        });
      }
      const { cache, clock } = c.get("deps");
      let stored = await loadShard(cache, clock.now(), view.anio, categoria, found);
      if (!stored) {
        // Part of the index went missing from storage: read the workbook again, once.
        view = await catalogFor(c, categoria, view.anio, WEIGHT, true);
        found = findTipo();
        stored = found ? await loadShard(cache, clock.now(), view.anio, categoria, found) : null;
        if (!found || !stored)
          throw new ApiError(502, "SII_GATEWAY_ERROR", "The appraisal index could not be rebuilt", { details: { service: "vehiculos" } });
      }
      const shard = stored;
      const marca =
        body.marca === undefined
          ? null
          : fold(typeof body.marca === "number" ? (view.catalog.marcas.find((m) => m.id === body.marca)?.name ?? "\u0000") : body.marca);
      const rows = matching(shard, body, marca);
      const porPagina = body.por_pagina ?? DEFAULT_POR_PAGINA;
      const pagina = body.pagina ?? 1;
      const page = rows.slice((pagina - 1) * porPagina, pagina * porPagina).map((row) => decodeRow(shard, row));
      return ok(c, {
        anio_tasa: view.anio,
        categoria: { id: categoria, name: CATEGORIAS[categoria].name },
        tipo: { id: found.id, name: found.name },
        total: rows.length,
        pagina,
        por_pagina: porPagina,
        paginas: Math.ceil(rows.length / porPagina),
        vehiculos: page,
      });
    },
  );
}
