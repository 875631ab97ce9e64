// POST /api/v1/sii/rcv/ventas/delete_resumen/{emisor}/{periodo}: deletes monthly sales summaries
// (the SII-side call is inferred: src/sii/rcv-inferred.ts).
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { Periodo, Rut } from "../../platform/params.ts";
import { pathParams } from "../../platform/schemas.ts";
import { deleteResumen } from "../../sii/rcv-inferred.ts";
import { registerRcvWrite } from "./factory.ts";
import { SUMMARY_TYPES, withAuth } from "./schema.ts";

export function registerRcvVentasDeleteResumen(app: OpenAPIHono<AppEnv>): void {
  registerRcvWrite(app, {
    path: "/api/v1/sii/rcv/ventas/delete_resumen/{emisor}/{periodo}",
    access: { scope: "sii:write", weight: 5, write: true },
    summary: "Delete monthly sales summaries",
    params: pathParams({ emisor: Rut, periodo: Periodo }),
    rut: (params) => params.emisor,
    body: withAuth({
      tipos_documento: z
        .array(z.number().int())
        .min(1)
        .max(SUMMARY_TYPES.length)
        .optional()
        .openapi({ description: "Default: every summary type" }),
    }).openapi("RcvDeleteResumen"),
    check: (body) =>
      (body.tipos_documento ?? []).flatMap((t, i) =>
        (SUMMARY_TYPES as readonly number[]).includes(t)
          ? []
          : [{ path: `tipos_documento.${i}`, location: "body" as const, message: `must be one of ${SUMMARY_TYPES.join(", ")}` }],
      ),
    send: (ctx, jar, rut, body, params) => deleteResumen(ctx, jar, rut, params.periodo, body.tipos_documento ?? [...SUMMARY_TYPES]),
  });
}
