// GET /api/v1/sii/indicadores/correccion_monetaria/anual/{anio}: the year's monetary-correction
// table, one entry per month.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonContent } from "../../platform/schemas.ts";
import { correccionYear } from "../../sii/indicadores.ts";
import { siiContext } from "../sii-context.ts";
import { cachedYear, int } from "./cache.ts";

const Params = z.object({ anio: int("anio", 1900, 2100, 2025) });

const Table = envelope(
  z
    .object({
      anio: z.number().int(),
      meses: z
        .array(
          z.object({
            mes: z.number().int().min(1).max(12),
            nombre_mes: z.string().openapi({ example: "ENERO" }),
            porcentaje: z
              .number()
              .nullable()
              .openapi({ description: "% by which an amount of that month is corrected to the year's end; null if not published yet" }),
            factor: z.number().nullable().openapi({ description: "The multiplying factor (1 + porcentaje/100), as the SII publishes it" }),
          }),
        )
        .openapi({ description: "January to December, in order" }),
    })
    .openapi("CorreccionMonetaria"),
);

export function registerCorreccionMonetaria(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/sii/indicadores/correccion_monetaria/anual/{anio}",
      tags: ["Indicators"],
      summary: "Annual monetary correction",
      request: { params: Params },
      responses: { 200: jsonContent(Table, "The table"), ...errorResponses([400, 404, 502, 503]) },
    }),
    async (c) => {
      const { anio } = valid(c, "param", Params);
      const ctx = await siiContext(c);
      const meses = await cachedYear(
        c,
        `correccion:${anio}`,
        () => correccionYear(ctx, anio),
        (m) => m.length === 12 && m.every((x) => x.factor !== null),
      );
      if (!meses) throw new ApiError(404, "HTTP_404", `The SII has not published the monetary correction of ${anio}`);
      return ok(c, { anio, meses: [...meses].sort((a, b) => a.mes - b.mes) });
    },
  );
}
