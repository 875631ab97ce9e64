// POST /api/v1/platform/dte/envios/verificar: is a received document (or every document of an
// envelope) authentic? Locally: its XMLDSig signature (the verifier ladder, so real documents of
// other software verify), its stamp with the CAF's key, the CAF with the SII's key, and that the
// stamp says what the document says. With a certificate, also the SII's own check (QueryEstDteAv).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { DocumentSummary } from "../../dte/verify/envelope.ts";
import {
  envelopeStampTimes,
  type SignerReport,
  STAMPED_FIELDS,
  signerReport,
  signingTime,
  stampTimes,
  withSigner,
} from "../../dte/verify/signer.ts";
import { type Check, verifyStamp } from "../../dte/verify/timbre.ts";
import { findChild } from "../../dte/xml/parse.ts";
import { chargeUnits } from "../../platform/charge.ts";
import type { AppEnv } from "../../platform/context.ts";
import { okInPieces } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { Ambiente } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { trustedCafKeys } from "../../services/caf-keys.ts";
import { siiServices } from "../../services/sii-context.ts";
import { trustStoreFor } from "../../services/trust-store.ts";
import { advancedDocumentStatus, type SiiDocumentStatus } from "../../sii/envios.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import {
  batchYielder,
  chargeRule,
  MAX_BATCH_BOLETAS,
  MAX_BATCH_DOCUMENTS,
  MAX_BATCH_LINES,
  MAX_DOCUMENT_LINES,
  readUploadedBatch,
} from "../document-batch.ts";
import { EXAMPLE_ENVELOPE } from "../example-documents.ts";
import { inspectXmlField, XmlField } from "../uploaded-xml.ts";

const WEIGHT = 2;

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

const CheckSchema = z
  .object({
    valido: z.boolean(),
    motivo: z.string().nullable().register(z.globalRegistry, { description: "Why it failed, or a note on how it passed" }),
  })
  .openapi("Check");

const Firmante = z
  .object({
    rut: z.string().nullable().register(z.globalRegistry, { description: "The holder's RUT, from the certificate" }),
    nombre: z.string(),
    emisor: z.string().register(z.globalRegistry, { description: "The CA that issued the certificate" }),
    vigente_desde: z.string(),
    vigente_hasta: z.string(),
    vigente_al_firmar: z
      .boolean()
      .nullable()
      .register(z.globalRegistry, { description: "Valid at the signing time the document states (null: it states none)" }),
    confianza: z.enum(["cadena_valida", "emisor_desconocido", "autofirmado", "cadena_invalida"]).register(z.globalRegistry, {
      description:
        "`cadena_valida`: chains to the trust store (the accredited Chilean CAs bundled with the gateway, the operator's TRUST_ANCHORS_PEM, and in sandbox mode the sandbox's CA); `emisor_desconocido`: its issuer is not in the store (real DTEs are signed under class-2 CAs whose certificates are not public); `autofirmado` and `cadena_invalida` make the signature invalid. `cadena_invalida` also when the certificate may not sign DTEs (a CA, a keyUsage or extendedKeyUsage that does not allow signing, an unknown critical extension, an RSA key under 1024 bits, no RUT or more than one) or the stated signing time is out of its bounds (after the verification, before the TED's TSTED or the CAF's FA, more than 7 days before FchEmis); `motivo` names which",
    }),
    cadena: z.array(z.string()).register(z.globalRegistry, { description: "Subject names from the signer up to the trusted CA" }),
    motivo: z.string().nullable(),
  })
  .nullable()
  .openapi("Signer", { description: "The signer's certificate and whether it can be trusted; null when none could be read" });

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

const check = (c: { valido: boolean; motivo: string | null } | null, missing: string): Check =>
  c ? { valido: c.valido, motivo: c.motivo } : { valido: false, motivo: missing };

interface Reported {
  tipo: number;
  folio: number;
  firma: Check;
  firmante: SignerReport | null;
  timbre: Check;
  caf: Check;
  coherencia: Check;
  sii: SiiDocumentStatus | null;
}

/**
 * What could not be established, in words (null: everything was): each failed check, what the file
 * says against itself (the envelope's findings), and each document whose signer is not established.
 */
function unestablished(
  sobre: { firma: Check } | null,
  hallazgos: readonly { path: string; message: string }[],
  documentos: Reported[],
  siiAsked: boolean,
): string | null {
  const parts: string[] = [];
  if (sobre && !sobre.firma.valido) parts.push(`the envelope's signature: ${sobre.firma.motivo}`);
  if (hallazgos.length) parts.push(`the envelope: ${hallazgos.map((h) => `${h.path} ${h.message}`).join("; ")}`);
  documentos.forEach((d, i) => {
    const failed = (["firma", "timbre", "caf", "coherencia"] as const)
      .filter((name) => !d[name].valido)
      .map((name) => `${name}: ${d[name].motivo}`);
    if (d.sii && d.sii.estado !== "DOK") failed.push(`the SII answered ${d.sii.estado}${d.sii.glosa ? ` (${d.sii.glosa})` : ""}`);
    else if (!failed.length && d.firmante?.confianza !== "cadena_valida" && d.sii?.estado !== "DOK") {
      const who = d.firmante
        ? `its signer's certificate (issued by ${d.firmante.emisor}) does not chain to a trusted CA`
        : "its signer is unknown";
      failed.push(
        `${who}, and ${siiAsked ? "the SII did not confirm it" : "the SII was not asked to confirm it (give auth.cert)"}; its valid stamp vouches for ${STAMPED_FIELDS.join(", ")}`,
      );
    }
    if (failed.length) parts.push(`document ${i + 1} (type ${d.tipo}, folio ${d.folio}): ${failed.join("; ")}`);
  });
  return parts.length ? parts.join(". ") : null;
}

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
      // it is parsed: an envelope too large or unpaid costs no parse and no signature check.
      const plain = await readUploadedBatch(c, WEIGHT, body.xml);
      // The same parsed tree is checked: reading it again would double the largest step.
      const report = await inspectXmlField(plain);

      const cafKeys = trustedCafKeys(c.get("deps"));
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

      // Each document the SII is asked about is one query of its own: charged like any batch, before the first.
      if (credential) await chargeUnits(c, report.documentos.length);
      const store = trustStoreFor(c.get("deps"));
      const now = c.get("deps").clock.now();
      const documentos = [];
      // On a time budget, as generar: ten documents of stamp and chain checks were 20 ms and more.
      const pause = batchYielder();
      for (const doc of report.documentos) {
        await pause();
        const stamp = await verifyStamp(report.doc, doc.documento, cafKeys);
        // The envelope's word against this document (its folio given twice) is a coherence failure.
        const coherencia = doc.hallazgos.length
          ? { valido: false, motivo: [stamp.coherencia.motivo, ...doc.hallazgos].filter(Boolean).join("; ") }
          : stamp.coherencia;
        const signer = await signerReport(
          doc.firma,
          signingTime(doc.documento, "TmstFirma"),
          { now, stamp: stampTimes(doc.documento) },
          store,
        );
        const stamped = stamp.timbre.valido && stamp.caf.valido && coherencia.valido;
        documentos.push({
          tipo: doc.tipo,
          folio: doc.folio,
          emisor: doc.emisor,
          firma: withSigner(check(doc.firma, "the document is not signed"), signer),
          firmante: signer?.report ?? null,
          ...stamp,
          coherencia,
          timbre_cubre: stamped ? [...STAMPED_FIELDS] : [],
          sii: await askSii(doc),
        });
      }
      let sobre: { firma: Check; firmante: SignerReport | null } | null = null;
      if (report.kind !== "DTE") {
        const signer = await signerReport(
          report.firma,
          signingTime(findChild(report.doc.root, "SetDTE", "Caratula"), "TmstFirmaEnv"),
          { now, stamp: envelopeStampTimes(report.documentos.map((d) => d.documento)) },
          store,
        );
        sobre = { firma: withSigner(check(report.firma, "the envelope is not signed"), signer), firmante: signer?.report ?? null };
      }
      const motivo = unestablished(sobre, report.hallazgos, documentos, credential !== null);
      const valido = motivo === null;
      return okInPieces(c, { valido, motivo, sobre, documentos });
    },
  );
}
