// GET /api/v1/sii/indicadores/correccion_monetaria/anual/{anio}: the year's monetary-correction
// table: per month the correction to the year's end, and the SII's whole matrix (initial capital and
// each month's row, one cell per month column).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonContent } from "../../platform/schemas.ts";
import { monetaryCorrection } from "../../services/indicadores.ts";
import { Anio } from "./schema.ts";

const Params = z.object({ anio: Anio });

const Row = z.array(z.number().nullable()).length(12).register(z.globalRegistry, {
  description:
    "The SII's row as published: % by which an amount is corrected to the end of each month, January (index 0) to December (11); null where the cell is blank (months before the origin, or not published yet)",
});

export const Table = envelope(
  z
    .object({
      anio: z.number().int(),
      capital_inicial: z
        .object({
          porcentaje: z.number().nullable().register(z.globalRegistry, {
            description: "% by which the initial own capital is corrected to the year's end; null if not published yet",
          }),
          factor: z.number().nullable().register(z.globalRegistry, { description: "1 + porcentaje/100" }),
          porcentajes: Row,
        })
        .register(z.globalRegistry, { description: 'The matrix\'s first row, "Capital Inicial"' }),
      meses: z
        .array(
          z.object({
            mes: z.number().int().min(1).max(12),
            nombre_mes: z.string().register(z.globalRegistry, { example: "ENERO" }),
            porcentaje: z.number().nullable().register(z.globalRegistry, {
              description:
                "% by which an amount of that month is corrected to the year's end (December's column); null if not published yet",
            }),
            factor: z.number().nullable().register(z.globalRegistry, { description: "The multiplying factor, 1 + porcentaje/100" }),
            porcentajes: Row,
          }),
        )
        .register(z.globalRegistry, { description: "January to December, in order" }),
    })
    .openapi("CorreccionMonetaria"),
);

export function registerIndicadoresCorreccionMonetaria(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/sii/indicadores/correccion_monetaria/anual/{anio}",
      tags: ["Indicators"],
      summary: "Annual monetary correction",
      description:
        "The SII's monetary-correction table of the year (corrección monetaria, for own capital and assets): per month the percentage and factor that correct an amount of that month to the year's end, and the SII's whole matrix. Cached; a year not published yet is a 404; no credentials needed.",
      request: { params: Params },
      responses: { 200: jsonContent(Table, "The table"), ...errorResponses([400, 404, 502, 503]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      const { anio } = c.req.valid("param");
      return ok(c, await monetaryCorrection(callerOf(c), anio));
    },
  );
}
