// POST /api/v1/sii/rcv/compras/set_tipo_transaccion/{receptor}/{periodo}: sets the transaction type
// of purchase documents with the portal's public call (src/sii/rcv.ts `cambiaTipoCompra`, sent by src/services/rcv.ts).
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { IntegerEnum, Rut } from "../../platform/params.ts";
import { pathParams } from "../../platform/schemas.ts";
import { EXAMPLE_CLAVE } from "../example-credentials.ts";
import { MAX_FOLIO, RcvPeriodo, Receptor, withAuth } from "./schema.ts";
import { registerRcvWrite } from "./write.ts";

/** Purchase types whose transaction type can be set. */
const PURCHASE_TYPES = [29, 30, 32, 33, 34, 40, 43, 45, 46, 55, 56, 60, 61, 108, 901, 914];

const Body = withAuth({
  documentos: z
    .array(
      z.object({
        tipo_documento: IntegerEnum(PURCHASE_TYPES, `must be a purchase document type (${PURCHASE_TYPES.join(", ")})`).meta({
          description: "Document type (SII code) of the purchase",
        }),
        rut_emisor: Rut.meta({
          description: "The supplier (the document's issuer), `XXXXXXXX-K`; check digit verified by the server",
          example: "76441725-9",
        }),
        folio: z.number().int().min(1).max(MAX_FOLIO).register(z.globalRegistry, { description: "The document's folio" }),
        tipo_transaccion: z.number().int().min(1).max(7).register(z.globalRegistry, {
          description:
            "1 del giro, 2 supermercado, 3 bienes raíces, 4 activo fijo, 5 IVA uso común, 6 IVA no recuperable, 7 no corresponde",
        }),
        // The public call (devlas-cl/dte-sii SiiPortalAuth.js cambiarTipoCompra) has no field for it:
        // refused rather than dropped without a word.
        codigo_iva_no_recuperable: z
          .unknown()
          .refine(() => false, { error: "cannot be sent: the SII's change of purchase type carries no code for non-recoverable VAT" })
          .optional()
          .register(z.globalRegistry, { not: {}, description: "Not accepted: the SII's call carries no such code (set it in the portal)" }),
      }),
    )
    .min(1)
    .max(500)
    .register(z.globalRegistry, { description: "The documents to change, 1 to 500, in the order they are sent" }),
}).openapi("RcvSetTipoTransaccion", {
  example: {
    auth: { pass: EXAMPLE_CLAVE },
    // A purchase of the sandbox's company in 202405 (the path's example period).
    documentos: [{ tipo_documento: 33, rut_emisor: "76441725-9", folio: 1000, tipo_transaccion: 4 }],
  },
});

export function registerRcvComprasSetTipoTransaccion(app: OpenAPIHono<AppEnv>): void {
  registerRcvWrite(app, {
    path: "/api/v1/sii/rcv/compras/set_tipo_transaccion/{receptor}/{periodo}",
    access: { scope: "sii:write", weight: 5, write: true },
    summary: "Set the transaction type of purchase documents",
    description:
      "The portal's own call (`cambiaTipoCompra`), one document at a time in the order given; a refusal stops there and names the documents already changed. `dry_run` validates everything without contacting the SII.",
    params: pathParams({ receptor: Receptor, periodo: RcvPeriodo }),
    rut: (params) => params.receptor,
    body: Body,
    change: (body) => ({ kind: "tipo_transaccion", documentos: body.documentos }),
  });
}
