// What the vehicle operations share: the category parameter, the appraisal year, and finding a
// category's catalogue in the index (ingesting the SII's workbook the first time).
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../platform/context.ts";
import { ApiError } from "../../platform/errors.ts";
import { FIRST_APPRAISAL_YEAR } from "../../sii/vehiculos.ts";
import { siiContext } from "../sii-context.ts";
import { CATEGORIAS, type Categoria, type CategoryCatalog, type WorkbookIndex, workbookIndex } from "./appraisal-index.ts";

export const TAGS = ["Vehicles"];
export const LAST_APPRAISAL_YEAR = 2100;

export const CATEGORIA_TEXT = "`1` light vehicles (livianos), `2` heavy (pesados), `3` motorcycles (motos)";

export const Named = z.object({ id: z.number().int().openapi({ example: 3 }), name: z.string().openapi({ example: "STATION WAGON" }) });

export const AnioTasaQuery = z.object({
  anio_tasa: z.coerce
    .number({ error: "must be a year" })
    .int({ error: "must be a whole number" })
    .min(FIRST_APPRAISAL_YEAR, { error: `must be ${FIRST_APPRAISAL_YEAR} or later (earlier workbooks are not XLSX)` })
    .max(LAST_APPRAISAL_YEAR, { error: `must be ${LAST_APPRAISAL_YEAR} or earlier` })
    .optional()
    .openapi({
      type: "integer",
      description: "Year of the appraisal (the workbook's year). Default: this year's, or last year's while this year's is not published.",
      example: 2026,
    }),
});

export const isCategoria = (value: number): value is Categoria => value === 1 || value === 2 || value === 3;

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
  c: Context<AppEnv>,
  categoria: Categoria,
  anioTasa: number | undefined,
  again = false,
): Promise<CatalogView> {
  const { cache, clock } = c.get("deps");
  const now = clock.now();
  const ctx = await siiContext(c);
  const kind = CATEGORIAS[categoria].workbook;
  const thisYear = now.getUTCFullYear();
  let anio = anioTasa ?? thisYear;
  let index = await workbookIndex(ctx, cache, now, kind, anio, again);
  if (index === null && anioTasa === undefined && anio > FIRST_APPRAISAL_YEAR) {
    anio = thisYear - 1;
    index = await workbookIndex(ctx, cache, now, kind, anio, again);
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
