// GET /api/v1/sii/vehiculos/categorias/{tipos|marcas|caracteristicas}/{categoria}: the lists a
// search is built from, as other gateways give them (`{id, name}`, characteristics with their
// values in `data`), from the index of the SII's appraisal workbook. The list is wrapped in an
// object with the category and appraisal year, as every success envelope's `data` is an object.
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
  item: z.ZodType;
  /** The component's name in the OpenAPI document. */
  component: string;
  pick: (catalog: CategoryCatalog) => unknown;
}

const LISTS: ListOperation[] = [
  {
    list: "tipos",
    summary: "Vehicle types of a category",
    description: "The types (`AUTOMOVIL`, `CAMIONETA`, …) with the id a search's `tipo` takes. Ids are numbered alphabetically per year.",
    item: Named,
    component: "VehiculoTipos",
    pick: (catalog) => catalog.tipos.map(({ id, name }) => ({ id, name })),
  },
  {
    list: "marcas",
    summary: "Makes of a category",
    description: "The makes with the id a search's `marca` takes (the name works too). Ids are numbered alphabetically per year.",
    item: Named.extend({ name: z.string().openapi({ example: "TOYOTA" }) }),
    component: "VehiculoMarcas",
    pick: (catalog) => catalog.marcas,
  },
  {
    list: "caracteristicas",
    summary: "Characteristics of a category",
    description:
      "Fuel, transmission, traction, country and doors, each with the values the workbook has (heavy vehicles have no fuel or doors).",
    item: Characteristic,
    component: "VehiculoCaracteristicas",
    pick: (catalog) => catalog.caracteristicas,
  },
];

/** `{categoria, anio, <list>: [...]}`: the list with what it is the list of. */
function listSchema(op: ListOperation): z.ZodType {
  return z
    .object({
      categoria: z.number().int().openapi({ description: CATEGORIA_TEXT }),
      anio: z.number().int().openapi({ description: "The appraisal year whose workbook the list comes from" }),
      [op.list]: z.array(op.item),
    })
    .openapi(op.component);
}

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
        responses: { 200: jsonContent(envelope(listSchema(op)), "The list"), ...errorResponses([400, 404, 502, 503]) },
      }),
      async (c) => {
        const { categoria } = valid(c, "param", Params);
        const { anio_tasa } = valid(c, "query", AnioTasaQuery);
        // The path schema lets only 1 to 3 through.
        const view: CatalogView = await categoryCatalog(c, categoria as Categoria, anio_tasa);
        const data = { categoria, anio: view.anio, [op.list]: op.pick(view.catalog) };
        return ok(c, data, `${op.list} of categoria ${categoria}, appraisal year ${view.anio}`);
      },
    );
  }
}
