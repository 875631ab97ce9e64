// POST /api/v1/platform/dte/intercambios/respuesta_sii: register the receiver's acceptance or
// claim of documents at the SII (ingresarAceptacionReclamoDoc), one or a batch. Writes are never
// retried; a batch stops at the first upstream failure and says which documents were not sent
// (src/services/intercambios.ts).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { isDryRun } from "../../platform/dry-run.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { Ambiente, DryRun } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { RESULTADOS, respondToDocuments } from "../../services/intercambios.ts";
import { parseCertificate } from "../credentials.ts";
import { Documento, documentoShape, RespuestaBody } from "./schema.ts";

const Query = z.object({ ambiente: Ambiente, dry_run: DryRun });

export const Result = envelope(
  z
    .object({
      documentos: z.array(
        z.object({
          ...documentoShape,
          emisor: z.string(),
          dte: z.number().int(),
          resultado: z.enum(RESULTADOS).register(z.globalRegistry, {
            description:
              "`registrado` now; `ya_registrado` the SII already had it (codes 7, 5 for a claim, 19); `rechazado` the SII refused it (its code and text say why); `error` the SII failed on it (retry later); `no_enviado` not sent (dry_run, or an earlier document hit an upstream failure)",
          }),
          codResp: z.number().int().nullable().register(z.globalRegistry, { description: "The SII's result code for this document" }),
          descResp: z.string().nullable().register(z.globalRegistry, { description: "The SII's text for this document, or the failure" }),
          codigo: z.number().int().nullable().register(z.globalRegistry, { description: "Same as `codResp` (kept for earlier clients)" }),
          glosa: z.string().nullable().register(z.globalRegistry, { description: "Same as `descResp` (kept for earlier clients)" }),
        }),
      ),
      registrados: z.number().int(),
      ya_registrados: z.number().int(),
      rechazados: z.number().int(),
      errores: z.number().int(),
      no_enviados: z.number().int(),
    })
    .openapi("ReceiverResponseResult"),
);

export function registerIntercambiosRespuestaSii(app: OpenAPIHono<AppEnv>): void {
  // `documentos` refers to it by name (one document or a list of them), so it is registered here.
  app.openAPIRegistry.register("ReceiverResponseDocument", Documento);
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/intercambios/respuesta_sii",
      tags: ["Exchanges"],
      summary: "Register acceptance or claim of received documents",
      description:
        "With the receiver's certificate, registers each document's action at the SII, in order. The SII allows it within eight days of its reception and only for types 33, 34 and 43. Not retried; send an `Idempotency-Key`. A batch stops at the first upstream failure (that document is `error`, the rest `no_enviado`); if the very first call fails, the whole call fails with that status. `dry_run` checks the input and the certificate only.",
      request: { query: Query, body: jsonBody(RespuestaBody) },
      responses: { 200: jsonContent(Result, "What the SII did with each document"), ...errorResponses([400, 422, 502, 503]) },
    }),
    { scope: "sii:write", weight: 5, write: true },
    async (c) => {
      // The certificate and dry_run are read from the request here (both need its context).
      const body = c.req.valid("json");
      const credential = await parseCertificate(c, body.auth.cert);
      const dryRun = isDryRun(c);
      const data = await respondToDocuments(callerOf(c), credential, c.req.valid("query").ambiente, body.documentos, dryRun);
      if (dryRun) return ok(c, data, `Preview only (dry_run): the certificate of ${credential.rut} is valid; nothing was sent to the SII`);
      return ok(c, data);
    },
  );
}
