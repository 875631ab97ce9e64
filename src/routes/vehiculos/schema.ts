// What the vehicle operations share: the category parameter, the appraisal year, and finding a
// category's catalogue in the index (src/sii/vehiculos-index.ts ingests the SII's workbook the first time).
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
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

export const isCategoria = (value: number): value is Categoria => value === 1 || value === 2 || value === 3;

/** A category's catalogue (see `categoryCatalog` in src/sii/vehiculos-index.ts) for this request. */
export async function catalogFor(
  c: Context<AppEnv>,
  categoria: Categoria,
  anioTasa: number | undefined,
  again = false,
): Promise<CatalogView> {
  const { cache, clock } = c.get("deps");
  const now = clock.now();
  return categoryCatalog(await siiContext(c), cache, now, categoria, anioTasa, again);
}
