// GET /api/v1/sii/indicadores/impuesto_segunda_categoria/anual/{anio}/{mes}: that month's
// brackets of the single second-category tax, per pay period.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonContent } from "../../platform/schemas.ts";
import { secondCategoryBrackets } from "../../services/indicadores.ts";
import { Anio, Mes } from "./schema.ts";

const Params = z.object({ anio: Anio, mes: Mes });

const Bracket = z
  .object({
    desde: z.number().register(z.globalRegistry, { description: "From this taxable income (CLP)" }),
    hasta: z.number().nullable().register(z.globalRegistry, { description: "Up to this income; null for the last bracket" }),
    factor: z.number().register(z.globalRegistry, { description: "Tax rate of the bracket (0.04 = 4 %)" }),
    rebaja: z.number().register(z.globalRegistry, { description: "Amount to deduct (CLP)" }),
    tasa_efectiva_maxima: z
      .number()
      .nullable()
      .register(z.globalRegistry, { description: "Maximum effective rate in the bracket, percent; null for the last" }),
  })
  .openapi("TaxBracket");

export const Table = envelope(
  z
    .object({
      anio: z.number().int(),
      mes: z.number().int(),
      mensual: z.array(Bracket),
      quincenal: z.array(Bracket),
      semanal: z.array(Bracket),
      diario: z.array(Bracket),
    })
    .openapi("ImpuestoSegundaCategoria"),
);

export function registerIndicadoresImpuestoSegundaCategoria(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/{anio}/{mes}",
      tags: ["Indicators"],
      summary: "Second-category tax brackets of a month",
      description:
        "The brackets of the single second-category tax (impuesto único de segunda categoría, on wages) that the SII publishes for the month, per pay period (monthly, fortnightly, weekly, daily), in CLP. Cached; a month not published yet is a 404; no credentials needed.",
      request: { params: Params },
      responses: { 200: jsonContent(Table, "The brackets per period"), ...errorResponses([400, 404, 502, 503]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      const { anio, mes } = c.req.valid("param");
      return ok(c, await secondCategoryBrackets(callerOf(c), anio, mes));
    },
  );
}
