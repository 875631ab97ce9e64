// POST /api/v1/platform/dte/envios/estado/{emisor}/{track_id}: where an uploaded envelope is in
// the SII's processing, with the certificate's DTE token (QueryEstUp).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { Ambiente, Rut } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { queryUploadStatus } from "../../sii/envios.ts";
import { CertAuthBody, parseCertificate, withDteToken } from "../credentials.ts";
import { siiContext } from "../sii-context.ts";

const Params = pathParams({
  emisor: Rut,
  track_id: z
    .string()
    .regex(/^\d{1,15}$/, { error: "must be the SII's track id: up to 15 digits" })
    .openapi({ type: "string", example: "0260003916" }),
});
const Query = z.object({ ambiente: Ambiente });

const Status = envelope(
  z
    .object({
      track_id: z.string(),
      estado: z.string().openapi({
        description:
          "The SII's code: `REC`, `SOK`, `CRT`, `FOK`, `PDR` while processing; `EPR` processed (see the counts); `RSC`, `RFR`, `RCT`, `RCH`… rejected; `RPR`, `RLV` objections",
        example: "EPR",
      }),
      glosa: z.string().nullable().openapi({ description: "The SII's text for the code", example: "Envio Procesado" }),
      resultado: z.enum(["procesando", "aceptado", "aceptado_con_reparos", "rechazado"]).openapi({
        description:
          "`aceptado` every document accepted; `aceptado_con_reparos` processed with objections or with some documents rejected (see the counts); `rechazado` the envelope or all its documents rejected",
      }),
      documentos: z
        .array(
          z.object({
            tipo: z.number().int(),
            informados: z.number().int(),
            aceptados: z.number().int(),
            rechazados: z.number().int(),
            reparos: z.number().int(),
          }),
        )
        .openapi({ description: "Counts per document type once processed (`EPR`); empty before" }),
      num_atencion: z.string().nullable().openapi({ description: "The SII's attention number" }),
    })
    .openapi("UploadStatus"),
);

export function registerEnvioEstado(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/envios/estado/{emisor}/{track_id}",
      tags: ["Submissions"],
      summary: "Processing status of a sent envelope",
      description:
        "Asks the SII (QueryEstUp) with the certificate of the issuer or its representative. Per-document rejection reasons are sent by the SII only by e-mail for DTE envelopes.",
      request: { params: Params, query: Query, body: jsonBody(CertAuthBody) },
      responses: { 200: jsonContent(Status, "The envelope's state"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    async (c) => {
      const { emisor, track_id } = valid(c, "param", Params);
      const { ambiente } = valid(c, "query", Query);
      const credential = await parseCertificate(c, valid(c, "json", CertAuthBody).auth.cert);
      const ctx = await siiContext(c);
      const status = await withDteToken(c, ctx, credential, ambiente, (token) => queryUploadStatus(ctx, ambiente, token, emisor, track_id));
      return ok(c, status);
    },
  );
}
