// GET /api/v1/sii/vehiculos/categorias/tipos/{categoria}: the vehicle types of a category.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerCategoryList } from "./category-list.ts";
import { Named } from "./schema.ts";

export function registerVehiculosCategoriasTipos(app: OpenAPIHono<AppEnv>): void {
  registerCategoryList(app, {
    path: "/api/v1/sii/vehiculos/categorias/tipos/{categoria}",
    access: { scope: "sii:read", weight: 1 },
    list: "tipos",
    summary: "Vehicle types of a category",
    description: "The types (`AUTOMOVIL`, `CAMIONETA`, …) with the id a search's `tipo` takes. Ids are numbered alphabetically per year.",
    item: Named,
    component: "VehiculoTipos",
  });
}
