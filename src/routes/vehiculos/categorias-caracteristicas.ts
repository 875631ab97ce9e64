// GET /api/v1/sii/vehiculos/categorias/caracteristicas/{categoria}: the characteristics of a
// category, each with the values the workbook has.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerCategoryList } from "./category-list.ts";
import { Named } from "./schema.ts";

export const Characteristic = Named.extend({
  data: z.array(Named).register(z.globalRegistry, { description: "The values the workbook has, numbered from 1" }),
});

export function registerVehiculosCategoriasCaracteristicas(app: OpenAPIHono<AppEnv>): void {
  registerCategoryList(app, {
    path: "/api/v1/sii/vehiculos/categorias/caracteristicas/{categoria}",
    access: { scope: "sii:read", weight: 1 },
    list: "caracteristicas",
    summary: "Characteristics of a category",
    description:
      "Fuel, transmission, traction, country and doors, each with the values the workbook has (heavy vehicles have no fuel or doors).",
    item: Characteristic,
    component: "VehiculoCaracteristicas",
  });
}
