// GET /api/v1/sii/vehiculos/categorias/marcas/{categoria}: the makes of a category.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerCategoryList } from "./category-list.ts";
import { Named } from "./schema.ts";

export function registerVehiculosCategoriasMarcas(app: OpenAPIHono<AppEnv>): void {
  registerCategoryList(app, {
    path: "/api/v1/sii/vehiculos/categorias/marcas/{categoria}",
    access: { scope: "sii:read", weight: 1 },
    list: "marcas",
    summary: "Makes of a category",
    description: "The makes with the id a search's `marca` takes (the name works too). Ids are numbered alphabetically per year.",
    item: Named.extend({ name: z.string().register(z.globalRegistry, { example: "TOYOTA" }) }),
    component: "VehiculoMarcas",
  });
}
