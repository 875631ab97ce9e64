// The submissions' work, with no HTTP: verifying the documents of an uploaded DTE or envelope
// (signatures, stamps, CAFs, signers, and the SII's own check when a certificate is given),
// sending an envelope once every check the SII would make passed, and asking where a sent one is.
// The route reads the upload (limits, charge, parse) and the certificate; these take the results.
import type { SigningCredential } from "../certificates/credentials.ts";
import type { EnvelopeReport } from "../dte/verify/envelope.ts";
import {
  envelopeStampTimes,
  type SignerReport,
  STAMPED_FIELDS,
  signerReport,
  signingTime,
  stampTimes,
  withSigner,
} from "../dte/verify/signer.ts";
import { type Check, verifyStamp } from "../dte/verify/timbre.ts";
import { findChild } from "../dte/xml/parse.ts";
import { santiagoIso } from "../lib/dates.ts";
import { batchYielder } from "../lib/yielder.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import type { PreviewMarks } from "../platform/preview.ts";
import { advancedDocumentStatus, queryUploadStatus, type SiiDocumentStatus } from "../sii/envios.ts";
import { boletaUploadStatus, uploadBoletas } from "../sii/envios-boleta.ts";
import { uploadEnvelope } from "../sii/envios-upload.ts";
import type { Ambiente } from "../sii/hosts.ts";
import { trustedCafKeys } from "./caf-keys.ts";
import { followEnvelope, jobView } from "./jobs.ts";
import { siiServicesFor } from "./sii-context.ts";
import { trustStoreFor } from "./trust-store.ts";

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

type AskSii = (doc: EnvelopeReport["documentos"][number]) => Promise<SiiDocumentStatus> | null;

/** How one document is put to the SII (QueryEstDteAv) with `credential`, or never without one; charged first, one unit a document. */
async function siiCheck(caller: Caller, report: EnvelopeReport, ambiente: Ambiente, credential: SigningCredential | null): Promise<AskSii> {
  if (!credential) return () => null;
  const sii = await siiServicesFor(caller);
  // Each document the SII is asked about is one query of its own: charged like any batch, before the first.
  await caller.charge(report.documentos.length, "this call");
  return (doc) =>
    sii.sessions.withDteToken(credential, ambiente, (token) =>
      advancedDocumentStatus(sii.ctx, ambiente, token, {
        emisor: doc.emisor,
        receptor: doc.receptor,
        tipo: doc.tipo,
        folio: doc.folio,
        fecha: doc.fecha_emision,
        monto: doc.monto_total,
        firma: doc.signatureValue ?? "",
      }),
    );
}

/** What only the SII gives an upload: a preview answers them null. */
export const SEND_PLACEHOLDERS = ["track_id", "estado", "fecha_recepcion"] as const;

export interface VerifyInput {
  /** The upload, read and checked (inspectEnvelope): this very tree is verified. */
  report: EnvelopeReport;
  ambiente: Ambiente;
  /** The certificate the SII's check runs with; null: the SII is not asked. */
  credential: SigningCredential | null;
}

/** Each document's checks, the envelope's signature, and in words what could not be established. */
export async function verifyEnvelope(caller: Caller, { report, ambiente, credential }: VerifyInput) {
  const { deps } = caller;
  const cafKeys = trustedCafKeys(deps);
  const askSii = await siiCheck(caller, report, ambiente, credential);
  const store = trustStoreFor(deps);
  const now = deps.clock.now();
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
    const signer = await signerReport(doc.firma, signingTime(doc.documento, "TmstFirma"), { now, stamp: stampTimes(doc.documento) }, store);
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
  return { valido: motivo === null, motivo, sobre, documentos };
}

function refused(message: string, problems: { path: string; message: string }[]): ApiError {
  return new ApiError(400, "VALIDATION_ERROR", message, {
    errors: problems.map((p) => ({ path: `xml:${p.path}`, location: "body" as const, message: p.message })),
  });
}

export interface SendInput {
  /** The upload, read and checked (inspectEnvelope). */
  report: EnvelopeReport;
  ambiente: Ambiente;
  /** The file name the SII records, when the caller gave one. */
  archivo: string | undefined;
  /** Reads the sender's certificate: only once the envelope passed its checks (a refusal reads none). */
  readCertificate: () => Promise<SigningCredential>;
  /** Stop right before the upload, with every check made. */
  dryRun: boolean;
  /** Start a job following the envelope to its verdict, charged to the calling token. */
  follow?: boolean;
}

/**
 * Sends the envelope to the SII (DTEUpload, or the boleta service for an EnvioBOLETA), refusing
 * first with 400 what the SII would refuse. Never retried. With `dryRun` nothing is sent: the
 * answer is the same with nulls where the SII's receipt would be.
 */
export async function sendEnvelope(caller: Caller, { report, ambiente, archivo, readCertificate, dryRun, follow }: SendInput) {
  if (report.kind === "DTE") {
    throw refused("xml is a lone DTE: send it inside an EnvioDTE (documentos/generar returns one as envio_xml)", [
      { path: "DTE", message: "is not an envelope" },
    ]);
  }
  if (report.problems.length) {
    throw refused(`The envelope would be refused: ${report.problems.map((p) => `${p.path} ${p.message}`).join("; ")}`, report.problems);
  }
  const credential = await readCertificate();
  const caratula = report.caratula!;
  if (caratula.rut_envia !== credential.rut) {
    throw refused(`The envelope says it is sent by ${caratula.rut_envia}; the certificate is ${credential.rut}'s`, [
      { path: "SetDTE/Caratula/RutEnvia", message: `is ${caratula.rut_envia}, not the certificate's ${credential.rut}` },
    ]);
  }
  const documentos = report.documentos.map((d) => ({ tipo: d.tipo, folio: d.folio }));
  const fileName = archivo ?? `${report.kind}_${caratula.rut_emisor}_${documentos[0]?.folio ?? 0}.xml`;
  const servicio = report.kind === "EnvioBOLETA" ? ("boleta" as const) : ("dte" as const);
  const emisor = caratula.rut_emisor;
  if (dryRun) {
    const vista_previa: PreviewMarks = { provisionales: [...SEND_PLACEHOLDERS], estimados: [] };
    return {
      track_id: null,
      estado: null,
      fecha_recepcion: null,
      servicio,
      archivo: fileName,
      emisor,
      documentos,
      seguimiento: null,
      vista_previa,
    };
  }
  const { ctx, sessions } = await siiServicesFor(caller);
  const upload = { sender: credential.rut, company: emisor, fileName, file: report.bytes };
  const send = servicio === "boleta" ? uploadBoletas : uploadEnvelope;
  let used = "";
  const received = await sessions.withDteToken(
    credential,
    ambiente,
    (token) => {
      used = token;
      return send(ctx, ambiente, token, upload);
    },
    servicio,
  );
  const stamp = received.timestamp?.trim().replace(" ", "T");
  // The envelope is sent: a job that cannot be created (the account's live jobs at their limit) leaves `seguimiento` null, never fails the answer.
  const followed = follow ? await followEnvelope(caller, { emisor, track_id: received.track_id, servicio, ambiente }, used) : null;
  return {
    track_id: received.track_id,
    estado: "REC",
    fecha_recepcion: stamp && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(stamp) ? santiagoIso(stamp) : null,
    servicio,
    archivo: received.archivo,
    emisor,
    documentos,
    seguimiento: followed && followed.state !== "full" ? jobView(followed.job) : null,
  };
}

export interface StatusInput {
  emisor: string;
  track_id: string;
  ambiente: Ambiente;
  servicio: "dte" | "boleta";
  credential: SigningCredential;
}

/** Where a sent envelope is in the SII's processing: QueryEstUp for DTE envelopes, the boleta service for boletas. */
export async function uploadStatus(caller: Caller, { emisor, track_id, ambiente, servicio, credential }: StatusInput) {
  const { ctx, sessions } = await siiServicesFor(caller);
  return sessions.withDteToken(
    credential,
    ambiente,
    async (token) =>
      servicio === "boleta"
        ? boletaUploadStatus(ctx, ambiente, token, emisor, track_id)
        : { ...(await queryUploadStatus(ctx, ambiente, token, emisor, track_id)), detalle: null },
    servicio,
  );
}
