// POST /api/v1/sii/rcv/ventas/set_resumen/{emisor}/{periodo}: enters or replaces monthly sales
// summaries (the SII-side call is inferred: src/sii/rcv-inferred.ts).
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { pathParams } from "../../platform/schemas.ts";
import { fieldPath } from "../../platform/validation.ts";
import { EXAMPLE_CLAVE } from "../example-credentials.ts";
import { Count, Emisor, RcvPeriodo, SUMMARY_TYPES, SummaryType, Totals, withAuth } from "./schema.ts";
import { checkTotals, registerRcvWrite } from "./write.ts";

const Resumen = z.object({
  tipo_documento: SummaryType.meta({ description: "The type summarized: 35, 38, 39 (boletas), 41 (boletas exentas) or 48 (vouchers)" }),
  documentos: Count.meta({ description: "How many documents the summary covers" }),
  ...Totals,
});

/** A summary that runs in the sandbox as written (120 boletas, 1 000 000 CLP with VAT). */
export const EXAMPLE_RESUMEN = {
  tipo_documento: 39,
  documentos: 120,
  monto_exento: 0,
  monto_neto: 840336,
  monto_iva: 159664,
  monto_total: 1000000,
};

export function registerRcvVentasSetResumen(app: OpenAPIHono<AppEnv>): void {
  registerRcvWrite(app, {
    path: "/api/v1/sii/rcv/ventas/set_resumen/{emisor}/{periodo}",
    access: { scope: "sii:write", weight: 5, write: true },
    summary: "Enter or replace monthly sales summaries",
    params: pathParams({ emisor: Emisor, periodo: RcvPeriodo }),
    rut: (params) => params.emisor,
    body: withAuth({
      resumenes: z
        .array(Resumen)
        .min(1)
        .max(SUMMARY_TYPES.length)
        .register(z.globalRegistry, { description: `One summary per type, 1 to ${SUMMARY_TYPES.length} (a type given twice is a 400)` }),
    }).openapi("RcvSetResumen", { example: { auth: { pass: EXAMPLE_CLAVE }, resumenes: [EXAMPLE_RESUMEN] } }),
    check: (body) => [
      ...body.resumenes.flatMap((r, i) =>
        body.resumenes.findIndex((o) => o.tipo_documento === r.tipo_documento) === i
          ? []
          : [
              {
                path: fieldPath("resumenes", i, "tipo_documento"),
                location: "body" as const,
                message: "at most one summary per type and period",
              },
            ],
      ),
      ...checkTotals(body.resumenes, "resumenes"),
    ],
    change: (body) => ({ kind: "resumen", resumenes: body.resumenes }),
  });
}
