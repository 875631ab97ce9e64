// POST /api/v1/sii/rcv/ventas/set_resumen/{emisor}/{periodo}: enters or replaces monthly sales
// summaries (the SII-side call is inferred: src/sii/rcv-inferred.ts).
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { Periodo, Rut } from "../../platform/params.ts";
import { pathParams } from "../../platform/schemas.ts";
import { setResumen } from "../../sii/rcv-inferred.ts";
import { checkTotals, registerRcvWrite } from "./factory.ts";
import { Count, SUMMARY_TYPES, Totals, withAuth } from "./schema.ts";

const Resumen = z.object({ tipo_documento: z.number().int(), documentos: Count, ...Totals });

export function registerRcvVentasSetResumen(app: OpenAPIHono<AppEnv>): void {
  registerRcvWrite(app, {
    path: "/api/v1/sii/rcv/ventas/set_resumen/{emisor}/{periodo}",
    access: { scope: "sii:write", weight: 5, write: true },
    summary: "Enter or replace monthly sales summaries",
    params: pathParams({ emisor: Rut, periodo: Periodo }),
    rut: (params) => params.emisor,
    body: withAuth({ resumenes: z.array(Resumen).min(1).max(SUMMARY_TYPES.length) }).openapi("RcvSetResumen"),
    check: (body) => [
      ...body.resumenes.flatMap((r, i) =>
        (SUMMARY_TYPES as readonly number[]).includes(r.tipo_documento)
          ? []
          : [{ path: `resumenes.${i}.tipo_documento`, location: "body" as const, message: `must be one of ${SUMMARY_TYPES.join(", ")}` }],
      ),
      ...body.resumenes.flatMap((r, i) =>
        body.resumenes.findIndex((o) => o.tipo_documento === r.tipo_documento) === i
          ? []
          : [{ path: `resumenes.${i}.tipo_documento`, location: "body" as const, message: "at most one summary per type and period" }],
      ),
      ...checkTotals(body.resumenes, "resumenes"),
    ],
    send: (ctx, jar, rut, body, params) => setResumen(ctx, jar, rut, params.periodo, body.resumenes),
  });
}
