// POST /api/v1/sii/rcv/ventas/delete_resumen/{emisor}/{periodo}: deletes monthly sales summaries
// (the SII-side call is inferred: src/sii/rcv-inferred.ts).
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { pathParams } from "../../platform/schemas.ts";
import { EXAMPLE_CLAVE } from "../example-credentials.ts";
import { Emisor, RcvPeriodo, SUMMARY_TYPES, SummaryType, withAuth } from "./schema.ts";
import { registerRcvWrite } from "./write.ts";

export function registerRcvVentasDeleteResumen(app: OpenAPIHono<AppEnv>): void {
  registerRcvWrite(app, {
    path: "/api/v1/sii/rcv/ventas/delete_resumen/{emisor}/{periodo}",
    access: { scope: "sii:write", weight: 5, write: true },
    summary: "Delete monthly sales summaries",
    params: pathParams({ emisor: Emisor, periodo: RcvPeriodo }),
    rut: (params) => params.emisor,
    body: withAuth({
      tipos_documento: z
        .array(SummaryType)
        .min(1)
        .max(SUMMARY_TYPES.length)
        .optional()
        .register(z.globalRegistry, {
          description: `The summary types to delete (${SUMMARY_TYPES.join(", ")}); default: every summary type`,
        }),
    }).openapi("RcvDeleteResumen", { example: { auth: { pass: EXAMPLE_CLAVE }, tipos_documento: [39] } }),
    change: (body) => ({ kind: "delete_resumen", tipos: body.tipos_documento ?? [...SUMMARY_TYPES] }),
  });
}
