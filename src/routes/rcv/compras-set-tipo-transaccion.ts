// POST /api/v1/sii/rcv/compras/set_tipo_transaccion/{receptor}/{periodo}: sets the transaction type
// of purchase documents with the portal's public call (src/sii/rcv.ts `cambiaTipoCompra`).
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { Periodo, Rut } from "../../platform/params.ts";
import { pathParams } from "../../platform/schemas.ts";
import { rcvSetTransactionTypes } from "../../sii/rcv.ts";
import { registerRcvWrite } from "./factory.ts";
import { withAuth } from "./schema.ts";

/** Purchase types whose transaction type can be set. */
const PURCHASE_TYPES = [29, 30, 32, 33, 34, 40, 43, 45, 46, 55, 56, 60, 61, 108, 901, 914];

const Body = withAuth({
  documentos: z
    .array(
      z.object({
        tipo_documento: z.number().int(),
        rut_emisor: Rut,
        folio: z.number().int().positive(),
        tipo_transaccion: z.number().int().min(1).max(7).openapi({
          description:
            "1 del giro, 2 supermercado, 3 bienes raíces, 4 activo fijo, 5 IVA uso común, 6 IVA no recuperable, 7 no corresponde",
        }),
        codigo_iva_no_recuperable: z.number().int().min(1).max(9).optional().openapi({
          description: "Not accepted: the SII's call carries no such code (set it in the portal)",
        }),
      }),
    )
    .min(1)
    .max(500),
}).openapi("RcvSetTipoTransaccion");

export function registerRcvComprasSetTipoTransaccion(app: OpenAPIHono<AppEnv>): void {
  registerRcvWrite(app, {
    path: "/api/v1/sii/rcv/compras/set_tipo_transaccion/{receptor}/{periodo}",
    access: { scope: "sii:write", weight: 5, write: true },
    summary: "Set the transaction type of purchase documents",
    description:
      "The portal's own call (`cambiaTipoCompra`), one document at a time in the order given; a refusal stops there and names the documents already changed. `dry_run` validates everything without contacting the SII.",
    params: pathParams({ receptor: Rut, periodo: Periodo }),
    rut: (params) => params.receptor,
    body: Body,
    check: (body) =>
      body.documentos.flatMap((d, i) => [
        ...(PURCHASE_TYPES.includes(d.tipo_documento)
          ? []
          : [
              {
                path: `documentos.${i}.tipo_documento`,
                location: "body" as const,
                message: `must be a purchase document type (${PURCHASE_TYPES.join(", ")})`,
              },
            ]),
        // The public call (devlas-cl/dte-sii SiiPortalAuth.js cambiarTipoCompra) has no field for it:
        // refused rather than dropped without a word.
        ...(d.codigo_iva_no_recuperable === undefined
          ? []
          : [
              {
                path: `documentos.${i}.codigo_iva_no_recuperable`,
                location: "body" as const,
                message: "cannot be sent: the SII's change of purchase type carries no code for non-recoverable VAT",
              },
            ]),
      ]),
    send: (ctx, jar, rut, body, params) => rcvSetTransactionTypes(ctx, jar, rut, params.periodo, body.documentos),
  });
}
