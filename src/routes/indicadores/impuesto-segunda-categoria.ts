// GET /api/v1/sii/indicadores/impuesto_segunda_categoria/anual/{anio}/{mes}: that month's
// brackets of the single second-category tax, per pay period.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { registerOperation } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonContent } from "../../platform/schemas.ts";
import { cachedYear } from "../../services/indicadores.ts";
import { siiContext } from "../../services/sii-context.ts";
import { segundaCategoriaMonth } from "../../sii/indicadores.ts";
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
      const ctx = await siiContext(c);
      // One entry a month (its page's section alone is read); a month of a year whose December is out is final.
      const read = await cachedYear(
        c.get("deps"),
        `segunda-categoria:${anio}:${mes}`,
        () => segundaCategoriaMonth(ctx, anio, mes),
        (r) => r.published.includes(12),
      );
      const month = read?.month;
      if (!month)
        throw new ApiError(
          404,
          "HTTP_404",
          `The SII has not published the second-category tax table of ${anio}-${String(mes).padStart(2, "0")}`,
        );
      return ok(c, { anio, mes, ...month });
    },
  );
}
