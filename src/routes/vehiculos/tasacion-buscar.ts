// POST /api/v1/sii/vehiculos/tasacion/buscar: the SII's fiscal appraisal of vehicles, searched in
// the index of its yearly workbook (never downloaded again for a search; src/services/vehiculos.ts).
// Results are sorted by make, model, version, year and code, and paginated.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { searchVehicles } from "../../services/vehiculos.ts";
import { Named, SearchBody, TAGS, Vehicle, workbookRule } from "./schema.ts";

const WEIGHT = 2;

export const Result = envelope(
  z
    .object({
      anio_tasa: z.number().int(),
      categoria: Named,
      tipo: Named,
      total: z.number().int().register(z.globalRegistry, { description: "Vehicles matching the filters" }),
      pagina: z.number().int(),
      por_pagina: z.number().int(),
      paginas: z.number().int(),
      vehiculos: z.array(Vehicle),
    })
    .openapi("VehiculoTasacionResultado"),
);

export function registerVehiculosTasacionBuscar(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/vehiculos/tasacion/buscar",
      tags: TAGS,
      summary: "Search the fiscal appraisal of vehicles",
      description: `From the SII's yearly appraisal workbooks (light and heavy vehicles), read once per year into the gateway's storage: the first search of a year reads the workbook, later ones answer from the index. \`categoria\` and \`tipo\` are required. Sorted by make, model, version, year and code. ${workbookRule(WEIGHT)}`,
      request: { body: jsonBody(SearchBody) },
      responses: { 200: jsonContent(Result, "The matching vehicles, one page"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: WEIGHT },
    async (c) => ok(c, await searchVehicles(callerOf(c), c.req.valid("json"), WEIGHT)),
  );
}
