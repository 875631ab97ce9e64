// POST /api/v1/platform/dte/envios/verificar: is a received document (or every document of an
// envelope) authentic? Locally: its XMLDSig signature (the verifier ladder, so real documents of
// other software verify), its stamp with the CAF's key, the CAF with the SII's key, and that the
// stamp says what the document says. With a certificate, also the SII's own check (QueryEstDteAv).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { DocumentSummary } from "../../dte/verify/envelope.ts";
import { type Check, verifyStamp } from "../../dte/verify/timbre.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { Ambiente } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { advancedDocumentStatus, type SiiDocumentStatus } from "../../sii/envios.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import { checkDocumentCount, MAX_BATCH_DOCUMENTS, yielder } from "../documentos/batch.ts";
import { trustedCafKeys } from "../documentos/caf-keys.ts";
import { EXAMPLE_ENVELOPE } from "../documentos/examples.ts";
import { fieldError, inspectXmlField, readXmlField } from "../documentos/factory.ts";
import { XmlField } from "../documentos/schema.ts";
import { siiServices } from "../sii-context.ts";

const Query = z.object({ ambiente: Ambiente });
const Body = z
  .object({
    xml: XmlField.openapi({ description: `A DTE, EnvioDTE or EnvioBOLETA, base64: at most ${MAX_BATCH_DOCUMENTS} documents` }),
    auth: CertAuthBody.shape.auth.optional().openapi({
      description: "Optional: with a certificate (of the issuer, the receiver or their representative) the SII checks each document too",
    }),
  })
  .openapi("VerifyRequest", { example: { xml: EXAMPLE_ENVELOPE } });

const CheckSchema = z
  .object({ valido: z.boolean(), motivo: z.string().nullable().openapi({ description: "Why it failed, or a note on how it passed" }) })
  .openapi("Check");

const Verified = envelope(
  z
    .object({
      valido: z.boolean().openapi({ description: "True only when every check of every document passed (the SII's too, when asked)" }),
      sobre: z.object({ firma: CheckSchema }).nullable().openapi({ description: "The envelope's own signature; null for a lone DTE" }),
      documentos: z.array(
        z.object({
          tipo: z.number().int(),
          folio: z.number().int(),
          emisor: z.string(),
          firma: CheckSchema.openapi({ description: "The document's XMLDSig signature" }),
          timbre: CheckSchema.openapi({ description: "The TED, signed with the CAF's key" }),
          caf: CheckSchema.openapi({ description: "The CAF, signed by the SII (key by IDK)" }),
          coherencia: CheckSchema.openapi({
            description: "The TED and the CAF say what the document says (RUTs, type, folio, date, total, first item, range)",
          }),
          sii: z
            .object({ recibido: z.boolean(), estado: z.string(), glosa: z.string().nullable(), track_id: z.string().nullable() })
            .nullable()
            .openapi({ description: "The SII's answer (QueryEstDteAv) when a certificate was given: `DOK` received and matching" }),
        }),
      ),
    })
    .openapi("Verification"),
);

const check = (c: { valido: boolean; motivo: string | null } | null, missing: string): Check =>
  c ? { valido: c.valido, motivo: c.motivo } : { valido: false, motivo: missing };

export function registerEnviosVerificar(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/envios/verificar",
      tags: ["Submissions"],
      summary: "Check the authenticity of documents",
      description:
        "Checks each document of a DTE or envelope: its signature (accepting the canonical forms real documents were signed with), its TED with the CAF's key, the CAF with the SII's key of its IDK (and, against the sandbox, the sandbox's), and their coherence with the document. A document that does not validate against the SII's schema can still verify. With `auth.cert`, the SII checks each document too (QueryEstDteAv).",
      request: { query: Query, body: jsonBody(Body) },
      responses: { 200: jsonContent(Verified, "Each document's checks"), ...errorResponses([400, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: 2 },
    async (c) => {
      const { ambiente } = valid(c, "query", Query);
      const body = valid(c, "json", Body);
      // Counted on a plain read first, so an envelope too large is refused before any signature is checked.
      checkDocumentCount("xml", (await readXmlField(body.xml)).dtes.length);
      const report = await inspectXmlField(body.xml);
      if (report.documentos.length === 0) throw fieldError("xml", "holds no documents");

      const cafKeys = trustedCafKeys(c);
      const credential = body.auth ? await parseCertificate(c, body.auth.cert) : null;
      const sii = credential ? await siiServices(c) : null;
      const askSii = (doc: DocumentSummary): Promise<SiiDocumentStatus> | null =>
        credential && sii
          ? sii.sessions.withDteToken(credential, ambiente, (token) =>
              advancedDocumentStatus(sii.ctx, ambiente, token, {
                emisor: doc.emisor,
                receptor: doc.receptor,
                tipo: doc.tipo,
                folio: doc.folio,
                fecha: doc.fecha_emision,
                monto: doc.monto_total,
                firma: doc.signatureValue ?? "",
              }),
            )
          : null;

      const documentos = [];
      const pause = yielder();
      for (const doc of report.documentos) {
        await pause();
        const stamp = await verifyStamp(report.doc, doc.documento, cafKeys);
        // The envelope's word against this document (its folio given twice) is a coherence failure.
        const coherencia = doc.hallazgos.length
          ? { valido: false, motivo: [stamp.coherencia.motivo, ...doc.hallazgos].filter(Boolean).join("; ") }
          : stamp.coherencia;
        documentos.push({
          tipo: doc.tipo,
          folio: doc.folio,
          emisor: doc.emisor,
          firma: check(doc.firma, "the document is not signed"),
          ...stamp,
          coherencia,
          sii: await askSii(doc),
        });
      }
      const sobre = report.kind === "DTE" ? null : { firma: check(report.firma, "the envelope is not signed") };
      const valido =
        (sobre?.firma.valido ?? true) &&
        documentos.every(
          (d) => d.firma.valido && d.timbre.valido && d.caf.valido && d.coherencia.valido && (d.sii === null || d.sii.estado === "DOK"),
        );
      return ok(c, { valido, sobre, documentos });
    },
  );
}
