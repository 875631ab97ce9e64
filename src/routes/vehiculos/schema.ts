// What the vehicle operations share: the category parameter, the appraisal year, and finding a
// category's catalogue in the index (src/sii/vehiculos-index.ts ingests the SII's workbook the first time).
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { chargeUnits } from "../../platform/charge.ts";
import type { AppEnv } from "../../platform/context.ts";
import { IntegerParam } from "../../platform/params.ts";
import { siiContext } from "../../services/sii-context.ts";
import { FIRST_APPRAISAL_YEAR } from "../../sii/vehiculos.ts";
import { type CatalogView, type Categoria, categoryCatalog } from "../../sii/vehiculos-index.ts";

export const TAGS = ["Vehicles"];
export const LAST_APPRAISAL_YEAR = 2100;

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

/**
 * Rows of the SII's workbook one unit pays for when a call reads it into the index. Reading and
 * indexing took 15–30 ms of CPU per 1 000 rows on the benchmark's 2-core machine, shared and busy
 * (`npm run bench -- --cost=vehiculos/`: 20 000 rows, 11 units, 26–60 ms a unit, the quieter runs
 * under 40): a unit then stays within 100 ms on a machine 2.5 times slower than those runs', and a
 * small workbook (the tests' 1 512 rows) costs the operations' weight.
 */
export const WORKBOOK_ROWS_PER_UNIT = 2_000;

/** What reading a workbook of `rows` rows (its sheet's, title block and header included) costs in all. */
export const workbookUnits = (rows: number) => Math.max(1, Math.ceil(rows / WORKBOOK_ROWS_PER_UNIT));

/** The charging rule, as each vehicle operation's description states it. */
export const workbookRule = (weight: number) =>
  `Charged ${weight} unit${weight === 1 ? "" : "s"} (the operation's weight), except the call that reads the SII's workbook into the index (the year's first vehicle call of the gateway): it pays 1 unit per started ${WORKBOOK_ROWS_PER_UNIT} rows of the workbook's sheet when that is more (the SII's 80 000 rows: ${workbookUnits(80_000)} units), counted from the sheet's own dimension before any row is read. Without those units left the call gets 429 \`QUOTA_EXCEEDED\` and nothing is built (its weight charged: the SII was asked for the file). A call answered from the index, or waiting for a read another call started, pays its weight.`;

export const isCategoria = (value: number): value is Categoria => value === 1 || value === 2 || value === 3;

/**
 * A category's catalogue (see `categoryCatalog` in src/sii/vehiculos-index.ts) for this request,
 * whose operation weighs `weight`: should it read the workbook, it pays the rows beyond that first.
 */
export async function catalogFor(
  c: Context<AppEnv>,
  categoria: Categoria,
  anioTasa: number | undefined,
  weight: number,
  again = false,
): Promise<CatalogView> {
  const { cache, clock } = c.get("deps");
  const now = clock.now();
  const pay = (rows: number) => chargeUnits(c, workbookUnits(rows) - weight);
  return categoryCatalog(await siiContext(c), cache, now, categoria, anioTasa, again, pay);
}
