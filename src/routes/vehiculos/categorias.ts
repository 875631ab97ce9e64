// GET /api/v1/sii/vehiculos/categorias/{tipos|marcas|caracteristicas}/{categoria}: the lists a
// search is built from, as other gateways give them (`{id, name}`, characteristics with their
// values in `data`), from the index of the SII's appraisal workbook.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonContent } from "../../platform/schemas.ts";
import { int } from "../indicadores/cache.ts";
import type { Categoria, CategoryCatalog } from "./appraisal-index.ts";
import { AnioTasaQuery, CATEGORIA_TEXT, type CatalogView, categoryCatalog, Named, TAGS } from "./schema.ts";

const Params = z.object({ categoria: int("categoria", 1, 3, 1).openapi({ description: CATEGORIA_TEXT, minimum: 1, maximum: 3 }) });

const Characteristic = Named.extend({ data: z.array(Named).openapi({ description: "The values the workbook has, numbered from 1" }) });

interface ListOperation {
  list: "tipos" | "marcas" | "caracteristicas";
  summary: string;
  description: string;
  schema: z.ZodType;
  pick: (catalog: CategoryCatalog) => unknown;
}

const LISTS: ListOperation[] = [
  {
    list: "tipos",
    summary: "Vehicle types of a category",
    description: "The types (`AUTOMOVIL`, `CAMIONETA`, …) with the id a search's `tipo` takes. Ids are numbered alphabetically per year.",
    schema: z.array(Named).openapi("VehiculoTipos"),
    pick: (catalog) => catalog.tipos.map(({ id, name }) => ({ id, name })),
  },
  {
    list: "marcas",
    summary: "Makes of a category",
    description: "The makes with the id a search's `marca` takes (the name works too). Ids are numbered alphabetically per year.",
    schema: z.array(Named).openapi("VehiculoMarcas"),
    pick: (catalog) => catalog.marcas,
  },
  {
    list: "caracteristicas",
    summary: "Characteristics of a category",
    description:
      "Fuel, transmission, traction, country and doors, each with the values the workbook has (heavy vehicles have no fuel or doors).",
    schema: z.array(Characteristic).openapi("VehiculoCaracteristicas"),
    pick: (catalog) => catalog.caracteristicas,
  },
];

export function registerCategorias(app: OpenAPIHono<AppEnv>): void {
  for (const op of LISTS) {
    registerOperation(
      app,
      createRoute({
        method: "get",
        path: `/api/v1/sii/vehiculos/categorias/${op.list}/{categoria}`,
        tags: TAGS,
        summary: op.summary,
        description: `${op.description} From the SII's yearly appraisal workbook, read once per year into the gateway's storage.`,
        request: { params: Params, query: AnioTasaQuery },
        responses: { 200: jsonContent(envelope(op.schema), "The list"), ...errorResponses([400, 404, 502, 503]) },
      }),
      async (c) => {
        const { categoria } = valid(c, "param", Params);
        const { anio_tasa } = valid(c, "query", AnioTasaQuery);
        // The path schema lets only 1 to 3 through.
        const view: CatalogView = await categoryCatalog(c, categoria as Categoria, anio_tasa);
        return ok(c, op.pick(view.catalog), `${op.list} of categoria ${categoria}, appraisal year ${view.anio}`);
      },
    );
  }
}
