// What the vehicle operations share: the category parameter, the appraisal year, the charging rule
// as their descriptions state it, and the search's body and vehicle.
import { z } from "@hono/zod-openapi";
import { IntegerParam, MAX_CHARS } from "../../platform/params.ts";
import { DEFAULT_POR_PAGINA, WORKBOOK_ROWS_PER_UNIT, workbookUnits } from "../../services/vehiculos.ts";
import { FIRST_APPRAISAL_YEAR } from "../../sii/vehiculos.ts";

export { workbookUnits };

export const TAGS = ["Vehicles"];
export const LAST_APPRAISAL_YEAR = 2100;
export const MAX_POR_PAGINA = 500;

/** The earliest model year a search takes. */
const FIRST_MODEL_YEAR = 1900;

export const CATEGORIA_TEXT = "`1` light vehicles (livianos), `2` heavy (pesados), `3` motorcycles (motos)";

export const Named = z.object({
  id: z.number().int().register(z.globalRegistry, { example: 3 }),
  name: z.string().register(z.globalRegistry, { example: "STATION WAGON" }),
});

export const AnioTasaQuery = z.object({
  anio_tasa: IntegerParam({
    min: FIRST_APPRAISAL_YEAR,
    max: LAST_APPRAISAL_YEAR,
    noun: "a year",
    example: 2026,
    description: `Year of the appraisal (the workbook's year), ${FIRST_APPRAISAL_YEAR} (the first XLSX workbook) to ${LAST_APPRAISAL_YEAR}. Default: this year's, or last year's while this year's is not published`,
  }).optional(),
});

/** The charging rule, as each vehicle operation's description states it. */
export const workbookRule = (weight: number) =>
  `Charged ${weight} unit${weight === 1 ? "" : "s"} (the operation's weight), except the call that reads the SII's workbook into the index (the year's first vehicle call of the gateway): it pays 1 unit per started ${WORKBOOK_ROWS_PER_UNIT} rows of the workbook's sheet when that is more (the SII's 80 000 rows: ${workbookUnits(80_000)} units), counted from the sheet's own dimension before any row is read. Without those units left the call gets 429 \`QUOTA_EXCEEDED\` and nothing is built (its weight charged: the SII was asked for the file). A call answered from the index, or waiting for a read another call started, pays its weight.`;

const IdOrName = z.union([z.number().int(), z.string().min(1).max(MAX_CHARS.name)]);

/** The message for an absent required field, in the words clients of other gateways know; zod's otherwise. */
const missing = (message: string) => (issue: { input: unknown }) => (issue.input === undefined ? message : undefined);

/** The ranges of the search. */
const range = (min: number, max: number) => ({ error: `must be ${min} to ${max}` });

/** The search: `categoria` and `tipo` are required, with the messages clients of other gateways know. */
export const SearchBody = z
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

export const Vehicle = z
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
