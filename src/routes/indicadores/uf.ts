// GET /api/v1/sii/indicadores/uf/anual/{anio}/{mes}/{dia}: the UF of one date, from the SII's
// yearly page (cached).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { IntegerParam } from "../../platform/params.ts";
import { envelope, errorResponses, jsonContent } from "../../platform/schemas.ts";
import { UF_PAGE_CHARS_PER_UNIT, ufOfDate } from "../../services/indicadores.ts";
import { Anio, Mes } from "./schema.ts";

const Params = z.object({
  anio: Anio,
  mes: Mes,
  dia: IntegerParam({
    min: 1,
    max: 31,
    noun: "a day",
    example: 15,
    description: "Day of the month, 1 to 31; a day the month does not have (2025-02-30) is a 400",
  }),
});

export const Uf = envelope(
  z
    .object({
      fecha: z.string().register(z.globalRegistry, { format: "date", example: "2025-03-15" }),
      valor: z.number().register(z.globalRegistry, { description: "CLP per UF", example: 38_853.91 }),
    })
    .openapi("UfValue"),
);

export function registerIndicadoresUf(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/sii/indicadores/uf/anual/{anio}/{mes}/{dia}",
      tags: ["Indicators"],
      summary: "The UF value of a date",
      description: `The value of the Unidad de Fomento (CLP per UF) on that date, from the SII's yearly table (an ISO-8859-1 page, cached: a complete year for good, the current year for an hour). A date the SII has not published yet is a 404; no credentials needed. Charged 1 unit, except the call that reads the year's page from the SII (not from the cache): it pays 1 unit per started ${UF_PAGE_CHARS_PER_UNIT / 1024} KiB of the page when that is more (taken before the page is read; without them, 429 \`QUOTA_EXCEEDED\`).`,
      request: { params: Params },
      responses: { 200: jsonContent(Uf, "The value"), ...errorResponses([400, 404, 502, 503]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      const { anio, mes, dia } = c.req.valid("param");
      return ok(c, await ufOfDate(callerOf(c), anio, mes, dia));
    },
  );
}
