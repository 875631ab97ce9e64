// The lists a search is built from, as other gateways give them (`{id, name}`, characteristics
// with their values in `data`), from the index of the SII's appraisal workbook. The list is
// wrapped in an object with the category and appraisal year, as every success envelope's `data`
// is an object. Each list's operation file calls `registerCategoryList` with its path.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { type Access, registerOperation } from "../../platform/operation.ts";
import { IntegerParam } from "../../platform/params.ts";
import { envelope, errorResponses, jsonContent } from "../../platform/schemas.ts";
import { type CategoryListName, categoryList } from "../../services/vehiculos.ts";
import { AnioTasaQuery, CATEGORIA_TEXT, TAGS, workbookRule } from "./schema.ts";

const Params = z.object({
  categoria: IntegerParam({ min: 1, max: 3, values: [1, 2, 3], noun: "a category", example: 1, description: CATEGORIA_TEXT }),
});

export interface ListOperation {
  path: string;
  access: Access;
  list: CategoryListName;
  summary: string;
  description: string;
  item: z.ZodType;
  /** The component's name in the OpenAPI document. */
  component: string;
}

export function registerCategoryList(app: OpenAPIHono<AppEnv>, op: ListOperation): void {
  // `{categoria, anio, <list>: [...]}`: the list with what it is the list of.
  const List = z
    .object({
      categoria: z.number().int().register(z.globalRegistry, { description: CATEGORIA_TEXT }),
      anio: z.number().int().register(z.globalRegistry, { description: "The appraisal year whose workbook the list comes from" }),
      [op.list]: z.array(op.item),
    })
    .openapi(op.component);
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: op.path,
      tags: TAGS,
      summary: op.summary,
      description: `${op.description} From the SII's yearly appraisal workbook, read once per year into the gateway's storage. ${workbookRule(op.access.weight)}`,
      request: { params: Params, query: AnioTasaQuery },
      responses: { 200: jsonContent(envelope(List), "The list"), ...errorResponses([400, 404, 502, 503]) },
    }),
    op.access,
    async (c) => {
      const { categoria } = c.req.valid("param");
      const data = await categoryList(callerOf(c), op.list, categoria, c.req.valid("query").anio_tasa, op.access.weight);
      return ok(c, data, `${op.list} of categoria ${categoria}, appraisal year ${data.anio}`);
    },
  );
}
