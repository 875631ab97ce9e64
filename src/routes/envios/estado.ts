// POST /api/v1/platform/dte/envios/estado/{emisor}/{track_id}: where an uploaded envelope is in
// the SII's processing, with the certificate's DTE token (QueryEstUp).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { Ambiente, Rut } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { uploadStatus } from "../../services/envios.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";

const Params = pathParams({
  // Example: an envelope the sandbox company sent before (seeded in every new sandbox).
  emisor: Rut.meta({ description: "The envelope's issuer (RutEmisor of its carátula)" }),
  track_id: z
    .string()
    .max(15)
    .regex(/^\d{1,15}$/, { error: "must be the SII's track id: up to 15 digits" })
    .register(z.globalRegistry, {
      example: "0260000001",
      description: "The track id `envios/enviar` returned: up to 15 digits, leading zeros kept",
    }),
});
const Query = z.object({
  ambiente: Ambiente,
  servicio: z.enum(["dte", "boleta"], { error: "must be dte or boleta" }).default("dte").register(z.globalRegistry, {
    description: "`dte` for envelopes sent through DTEUpload, `boleta` for EnvioBOLETA (as `envios/enviar` says)",
  }),
});

export const Status = envelope(
  z
    .object({
      track_id: z.string(),
      estado: z.string().register(z.globalRegistry, {
        description:
          "The SII's code: `REC`, `SOK`, `CRT`, `FOK`, `PDR` while processing; `EPR` processed (see the counts); `RSC`, `RFR`, `RCT`, `RCH`… rejected; `RPR`, `RLV` objections",
        example: "EPR",
      }),
      glosa: z.string().nullable().register(z.globalRegistry, { description: "The SII's text for the code", example: "Envio Procesado" }),
      resultado: z.enum(["procesando", "aceptado", "aceptado_con_reparos", "rechazado"]).register(z.globalRegistry, {
        description:
          "`aceptado` every document accepted; `aceptado_con_reparos` processed with objections, none rejected; `rechazado` the envelope or at least one of its documents rejected (the counts per type say which were accepted). Counts that do not add up (accepted + rejected + repaired ≠ informed) are a 502 SII_FORMAT_CHANGED",
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
        .register(z.globalRegistry, { description: "Counts per document type once processed (`EPR`); empty before" }),
      num_atencion: z.string().nullable().register(z.globalRegistry, { description: "The SII's attention number" }),
      detalle: z
        .array(
          z.object({
            tipo: z.number().int(),
            folio: z.number().int(),
            estado: z.string().register(z.globalRegistry, { description: "`RCH` rejected, `RPR`/`RLV` objections" }),
            descripcion: z.string().nullable(),
            errores: z.array(
              z.object({
                seccion: z.string().nullable(),
                codigo: z.union([z.number(), z.string()]).nullable(),
                descripcion: z.string().nullable(),
                detalle: z.string().nullable(),
              }),
            ),
          }),
        )
        .nullable()
        .register(z.globalRegistry, {
          description:
            "Each rejected or objected document with the SII's reasons: boleta envelopes once processed; null for DTE envelopes (the SII e-mails those)",
        }),
    })
    .openapi("UploadStatus"),
);

export function registerEnviosEstado(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/envios/estado/{emisor}/{track_id}",
      tags: ["Submissions"],
      summary: "Processing status of a sent envelope",
      description:
        "Asks the SII with the certificate of the issuer or its representative: QueryEstUp for DTE envelopes, the boleta service for `servicio=boleta` (which also gives each rejected boleta's reasons; for DTE envelopes the SII sends those only by e-mail). QueryEstUp's `-11` is a failed query, not a missing envelope: 502 with its `ERR_CODE`/`SQL_CODE`/`SRV_CODE` and text in `details` (retry later; the SII gives the same answer for a track id it does not know in the ambiente asked); 404 only when the SII says the envelope is not the issuer's (`ERR_CODE` 1).",
      request: { params: Params, query: Query, body: jsonBody(CertAuthBody) },
      responses: { 200: jsonContent(Status, "The envelope's state"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      const { emisor, track_id } = c.req.valid("param");
      const { ambiente, servicio } = c.req.valid("query");
      const credential = await parseCertificate(c, c.req.valid("json").auth.cert);
      return ok(c, await uploadStatus(callerOf(c), { emisor, track_id, ambiente, servicio, credential }));
    },
  );
}
