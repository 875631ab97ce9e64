// POST /api/v1/platform/dte/envios/verificar: is a received document (or every document of an
// envelope) authentic? Locally: its XMLDSig signature (the verifier ladder, so real documents of
// other software verify), its stamp with the CAF's key, the CAF with the SII's key, and that the
// stamp says what the document says. With a certificate, also the SII's own check (QueryEstDteAv).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { MAX_BATCH_BOLETAS, MAX_BATCH_DOCUMENTS, MAX_BATCH_LINES, MAX_DOCUMENT_LINES } from "../../platform/batch-limits.ts";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { okInPieces } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { Ambiente } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { verifyEnvelope } from "../../services/envios.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import { chargeRule, readUploadedBatch } from "../document-batch.ts";
import { EXAMPLE_ENVELOPE } from "../example-documents.ts";
import { inspectXmlField, XmlField } from "../uploaded-xml.ts";
import { CheckSchema, Firmante, VERIFY_WEIGHT as WEIGHT } from "./schema.ts";

const Query = z.object({ ambiente: Ambiente });
const Body = z
  .object({
    xml: XmlField.meta({
      description: `A DTE, EnvioDTE or EnvioBOLETA, base64: at most ${MAX_BATCH_DOCUMENTS} documents (an EnvioBOLETA ${MAX_BATCH_BOLETAS}, the SII's maxima), ${MAX_DOCUMENT_LINES} Detalle lines a document and ${MAX_BATCH_LINES} in all`,
    }),
    auth: CertAuthBody.shape.auth.optional().meta({
      description: "Optional: with a certificate (of the issuer, the receiver or their representative) the SII checks each document too",
    }),
  })
  .openapi("VerifyRequest", { example: { xml: EXAMPLE_ENVELOPE } });

export const Verified = envelope(
  z
    .object({
      valido: z.boolean().register(z.globalRegistry, {
        description:
          "True only when every check of every document passed (the SII's too, when asked) and each document's signer is established: its certificate chains to the trust store, or the SII confirmed the document (`auth` given)",
      }),
      motivo: z.string().nullable().register(z.globalRegistry, {
        description: "When not `valido`: in words, what could not be established, per document, and what the envelope says against itself",
      }),
      sobre: z
        .object({ firma: CheckSchema, firmante: Firmante })
        .nullable()
        .register(z.globalRegistry, { description: "The envelope's own signature; null for a lone DTE" }),
      documentos: z.array(
        z.object({
          tipo: z.number().int(),
          folio: z.number().int(),
          emisor: z.string(),
          firma: CheckSchema.meta({ description: "The document's XMLDSig signature, on the very Documento reported" }),
          firmante: Firmante,
          timbre: CheckSchema.meta({ description: "The TED, signed with the CAF's key" }),
          caf: CheckSchema.meta({ description: "The CAF, signed by the SII (key by IDK)" }),
          coherencia: CheckSchema.meta({
            description:
              "The TED and the CAF say what the document says (RUTs, type, folio, date, total, first item, range), and the envelope does not give its folio twice",
          }),
          timbre_cubre: z.array(z.string()).register(z.globalRegistry, {
            description:
              "The fields a valid stamp vouches for whoever signed the document (empty when the stamp, its CAF or their coherence failed)",
          }),
          sii: z
            .object({ recibido: z.boolean(), estado: z.string(), glosa: z.string().nullable(), track_id: z.string().nullable() })
            .nullable()
            .register(z.globalRegistry, {
              description: "The SII's answer (QueryEstDteAv) when a certificate was given: `DOK` received and matching",
            }),
        }),
      ),
    })
    .openapi("Verification"),
);

export function registerEnviosVerificar(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/envios/verificar",
      tags: ["Submissions"],
      summary: "Check the authenticity of documents",
      description: `Checks each document of a DTE or envelope: its signature (accepting the canonical forms real documents were signed with), its TED with the CAF's key, the CAF with the SII's key of its IDK (and, against the sandbox, the sandbox's), and their coherence with the document. Every check is made on the one parsed node it reports on (signature wrapping, comments and IDs carried twice make a document invalid). Each signer is reported with its chain to the trust store; \`valido\` needs the signer established (a chain, or the SII's confirmation), and \`motivo\` says what could not be. A document that does not validate against the SII's schema can still verify. With \`auth.cert\`, the SII checks each document too (QueryEstDteAv), at one more unit per document on top of the operation's weight. ${chargeRule(WEIGHT, true)}`,
      request: { query: Query, body: jsonBody(Body) },
      responses: { 200: jsonContent(Verified, "Each document's checks"), ...errorResponses([400, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: WEIGHT },
    async (c) => {
      const { ambiente } = c.req.valid("query");
      const body = c.req.valid("json");
      // Read with the limits the other readers apply (documents, Detalle lines), and charged, before
      // it is parsed: an envelope too large or unpaid costs no parse and no signature check. The
      // same parsed tree is checked: reading it again would double the largest step.
      const report = await inspectXmlField(await readUploadedBatch(c, WEIGHT, body.xml));
      const credential = body.auth ? await parseCertificate(c, body.auth.cert) : null;
      return okInPieces(c, await verifyEnvelope(callerOf(c), { report, ambiente, credential }));
    },
  );
}
