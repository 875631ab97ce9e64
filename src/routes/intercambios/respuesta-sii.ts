// POST /api/v1/platform/dte/intercambios/respuesta_sii: register the receiver's acceptance or
// claim of documents at the SII (ingresarAceptacionReclamoDoc), one or a batch. Writes are never
// retried; a batch stops at the first upstream failure and says which documents were not sent.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { isDryRun } from "../../platform/dry-run.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { registerOperation } from "../../platform/operation.ts";
import { Ambiente, DryRun, IntegerEnum, Rut } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { businessRule } from "../../platform/validation.ts";
import { docResponse } from "../../sii/intercambios.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import { EXAMPLE_PFX } from "../example-credentials.ts";
import { FolioNumber } from "../folio-fields.ts";
import { withReclamosToken } from "./factory.ts";
import { ACTIONABLE_TYPES, DTE_TYPES } from "./schema.ts";

export const MAX_DOCUMENTS = 50;
const ACCIONES = ["ERM", "ACD", "RCD", "RFP", "RFT"] as const;

const documentoShape = {
  emisor: Rut.meta({ description: "Issuer of the received document" }),
  // A DTE type that takes no acceptance or claim is a business rule (400 naming the document).
  dte: IntegerEnum(DTE_TYPES)
    .refine(
      (n) => (ACTIONABLE_TYPES as readonly number[]).includes(n),
      businessRule(`takes no acceptance or claim; only ${ACTIONABLE_TYPES.join(", ")}`),
    )
    .meta({
      enum: [...ACTIONABLE_TYPES],
      description: "33, 34 or 43 (the types that take acceptance or claim)",
      example: 33,
    }),
  folio: FolioNumber,
  accion: z.enum(ACCIONES, { error: `must be one of ${ACCIONES.join(", ")}` }).register(z.globalRegistry, {
    description:
      "`ERM` receipt of goods or services (Ley 19.983), `ACD` accept contents, `RCD` claim contents, `RFP` claim partial lack of goods, `RFT` claim total lack of goods",
  }),
};
const Documento = z.object(documentoShape).openapi("ReceiverResponseDocument");

const Body = z
  .object({
    auth: CertAuthBody.shape.auth,
    documentos: z
      .preprocess(
        (value) => (value && typeof value === "object" && !Array.isArray(value) ? [value] : value),
        z
          .array(Documento)
          .min(1, { error: "must list at least one document" })
          .max(MAX_DOCUMENTS, { error: `at most ${MAX_DOCUMENTS} documents per call` }),
      )
      // A lone object is taken as a list of one (`type` widened: the generated list schema says array).
      .meta({
        type: ["object", "array"],
        items: { $ref: "#/components/schemas/ReceiverResponseDocument" },
        anyOf: [
          { $ref: "#/components/schemas/ReceiverResponseDocument" },
          { type: "array", items: { $ref: "#/components/schemas/ReceiverResponseDocument" }, minItems: 1, maxItems: MAX_DOCUMENTS },
        ],
        description: `One document or a list of up to ${MAX_DOCUMENTS}`,
      }),
  })
  .openapi("ReceiverResponseRequest", {
    example: {
      auth: { cert: EXAMPLE_PFX },
      documentos: [{ emisor: "77123456-9", dte: 33, folio: 1001, accion: "ACD" }],
    },
  });

const Query = z.object({ ambiente: Ambiente, dry_run: DryRun });

const RESULTADOS = ["registrado", "ya_registrado", "rechazado", "error", "no_enviado"] as const;
type Resultado = (typeof RESULTADOS)[number];

/** A document's answer under the SII's names (`codResp`, `descResp`) and the earlier aliases. */
const answered = (codResp: number | null, descResp: string | null) => ({ codResp, descResp, codigo: codResp, glosa: descResp });

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
      request: { query: Query, body: jsonBody(Body) },
      responses: { 200: jsonContent(Result, "What the SII did with each document"), ...errorResponses([400, 422, 502, 503]) },
    }),
    { scope: "sii:write", weight: 5, write: true },
    async (c) => {
      const { ambiente } = c.req.valid("query");
      const body = c.req.valid("json");
      const credential = await parseCertificate(c, body.auth.cert);

      const results: z.output<typeof Result>["data"]["documentos"] = [];
      let stopped = isDryRun(c);
      for (const doc of body.documentos) {
        if (stopped) {
          results.push({ ...doc, resultado: "no_enviado", ...answered(null, null) });
          continue;
        }
        try {
          const ref = { emisor: doc.emisor, tipo: doc.dte, folio: doc.folio };
          const answer = await withReclamosToken(c, credential, ambiente, (ctx, token) =>
            docResponse(ctx, ambiente, token, ref, doc.accion),
          );
          results.push({ ...doc, resultado: answer.resultado, ...answered(answer.codResp, answer.descResp) });
        } catch (err) {
          // Nothing was registered yet: the caller gets the upstream failure itself.
          if (!(err instanceof ApiError) || results.length === 0) throw err;
          results.push({ ...doc, resultado: "error", ...answered(null, err.message) });
          stopped = true;
        }
      }
      const count = (r: Resultado) => results.filter((d) => d.resultado === r).length;
      const data = {
        documentos: results,
        registrados: count("registrado"),
        ya_registrados: count("ya_registrado"),
        rechazados: count("rechazado"),
        errores: count("error"),
        no_enviados: count("no_enviado"),
      };
      if (isDryRun(c)) {
        return ok(c, data, `Preview only (dry_run): the certificate of ${credential.rut} is valid; nothing was sent to the SII`);
      }
      return ok(c, data);
    },
  );
}
