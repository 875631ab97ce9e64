// Envelopes the simulated SII has received and their processing (docs/sii-services.md §8.2): each moves
// REC → SOK → FOK → PDR → EPR one step at a time, or stops at its rejection (RSC schema, RFR
// signature, RCT carátula); once processed, each document is accepted, accepted with objections
// or rejected. QueryEstUp reports the envelope's state and the counts per document type.
import type { Context } from "hono";
import { type DocumentSummary, type EnvelopeReport, EnvelopeUnreadable, inspectEnvelope } from "../dte/verify/envelope.ts";
import { santiagoDateTime } from "../lib/dates.ts";
import { bytesToHex } from "../lib/encoding.ts";
import { encodeLatin1 } from "../lib/latin1.ts";
import { rutCheckDigit } from "../lib/rut.ts";
import { elementText, escapeXml } from "../lib/xml.ts";
import { noteCertificationEnvelope } from "./certificacion.ts";
import { transferMotivo } from "./envios-transfer.ts";
import { folioBook } from "./folios.ts";
import { receivedKey } from "./intercambios.ts";
import { latin1Html } from "./pages.ts";
import type { Envio, EnvioDocument } from "./records.ts";
import { soapReturn } from "./soap.ts";
import type { SandboxState } from "./state.ts";
import { mayActFor, sandboxTaxpayer } from "./taxpayers.ts";

export { ENVIO_STEP_MS, envioEstado } from "./envios-steps.ts";
export type { Envio, EnvioDocument } from "./records.ts";

import { envioEstado } from "./envios-steps.ts";

export const ENVIO_GLOSAS: Record<string, string> = {
  REC: "Envio Recibido Conforme",
  SOK: "Schema Validado",
  CRT: "Caratula OK",
  FOK: "Firma de Envio Validada",
  PDR: "Envio en Proceso",
  EPR: "Envio Procesado",
  RSC: "Rechazado por Error en Schema",
  RFR: "Rechazado por Error en Firma",
  RCT: "Rechazado por Error en Caratula",
};

/** Envelopes the company sent before (processed), so the status query has history to show. */
export function seedEnvios(state: SandboxState, now: number): void {
  const company = "76192083-9";
  const long = now - 30 * 24 * 60 * 60 * 1000;
  const seeds: Omit<Envio, "ambiente" | "emisor" | "sender" | "received">[] = [
    {
      trackId: "0260000001",
      file: "envio_accepted.xml",
      documents: [11, 12, 13].map((folio) => ({ tipo: 33, folio, estado: "DOK" as const })),
    },
    {
      trackId: "0260000002",
      file: "envio_mixed.xml",
      documents: [
        { tipo: 33, folio: 14, estado: "DOK" },
        { tipo: 33, folio: 15, estado: "RCH", motivo: "DTE-3-505 Firma DTE Incorrecta" },
        { tipo: 61, folio: 1, estado: "RPR", motivo: "REF-3-415 Referencia sin fecha de documento" },
      ],
    },
    {
      trackId: "0260000003",
      file: "envio_bad_signature.xml",
      rejection: "RFR",
      detail: "Firma del envio no valida",
      documents: [{ tipo: 33, folio: 16, estado: "RCH" }],
    },
  ];
  for (const ambiente of ["0", "1"] as const) {
    for (const seed of seeds) {
      const trackId = ambiente === "0" ? seed.trackId : `1${seed.trackId.slice(1)}`;
      state.envios.set(trackId, { ...seed, trackId, ambiente, emisor: company, sender: "11111111-1", received: long });
    }
  }
}

function statusAnswer(body: string, hdr: string): Response {
  const inner = `<?xml version="1.0" encoding="UTF-8"?><SII:RESPUESTA xmlns:SII="http://www.sii.cl/XMLSchema"><SII:RESP_BODY>${body}</SII:RESP_BODY><SII:RESP_HDR>${hdr}</SII:RESP_HDR></SII:RESPUESTA>`;
  return soapReturn("getEstUp", inner);
}

/** QueryEstUp's `-11` "Error de Proceso" (ERR_CODE 2), which the SII also gives for a query it failed to answer. */
export function estUpProcessError(trackId: string): Response {
  return statusAnswer("", `<TRACKID>${escapeXml(trackId)}</TRACKID><ESTADO>-11</ESTADO><ERR_CODE>2</ERR_CODE>`);
}

/** Per-type counts of a processed envelope, in first-seen type order (informados = the other three). */
function countsByType(envio: Envio): string {
  const types = [...new Set(envio.documents.map((d) => d.tipo))];
  return types
    .map((tipo) => {
      const docs = envio.documents.filter((d) => d.tipo === tipo);
      const count = (estado: EnvioDocument["estado"]) => docs.filter((d) => d.estado === estado).length;
      return `<TIPO_DOCTO>${tipo}</TIPO_DOCTO><INFORMADOS>${docs.length}</INFORMADOS><ACEPTADOS>${count("DOK")}</ACEPTADOS><RECHAZADOS>${count("RCH")}</RECHAZADOS><REPAROS>${count("RPR")}</REPAROS>`;
    })
    .join("");
}

/** QueryEstUp getEstUp(RutCompania, DvCompania, TrackId, Token). */
export function queryEstUp(state: SandboxState, requestXml: string, ambiente: "0" | "1", now: number): Response {
  const token = state.tokens.get(elementText(requestXml, "Token") ?? "");
  if (!token || token.expiresAt < now || token.ambiente !== ambiente) {
    return statusAnswer("", "<ESTADO>003</ESTADO><GLOSA>TOKEN NO EXISTE</GLOSA>");
  }
  const rut = (elementText(requestXml, "RutCompania") ?? "").trim();
  const dv = (elementText(requestXml, "DvCompania") ?? "").trim().toUpperCase();
  const trackId = (elementText(requestXml, "TrackId") ?? "").trim();
  if (!/^\d{1,8}$/.test(rut) || rutCheckDigit(rut) !== dv)
    return statusAnswer("", "<ESTADO>-4</ESTADO><GLOSA>Error en Rut de la Empresa</GLOSA>");
  const company = `${rut}-${dv}`;
  if (!mayActFor(token.rut, company)) return statusAnswer("", "<ESTADO>-6</ESTADO><GLOSA>Usuario no autorizado</GLOSA>");
  const sameTrack = [...state.envios.values()].filter((e) => !e.boleta && e.ambiente === ambiente && Number(e.trackId) === Number(trackId));
  const envio = sameTrack.find((e) => e.emisor === company);
  if (!envio) {
    // `-11` carries its reason in ERR_CODE (LibreDTE CheckXmlDocumentSentStatusResponse.php): 1 "El
    // envío no es de la Empresa" for another company's envelope; 2 "Error de Proceso" for a track id
    // the SII does not know here (LibreDTE's live test: a production track id asked in certification).
    if (!sameTrack.length) return estUpProcessError(trackId);
    return statusAnswer("", `<TRACKID>${escapeXml(trackId)}</TRACKID><ESTADO>-11</ESTADO><ERR_CODE>1</ERR_CODE>`);
  }
  const estado = envioEstado(envio, now);
  const atencion = `<NUM_ATENCION>${(now % 100000).toString().padStart(5, "0")}</NUM_ATENCION>`;
  const hdr = `<TRACKID>${envio.trackId}</TRACKID><ESTADO>${estado}</ESTADO><GLOSA>${escapeXml(ENVIO_GLOSAS[estado] ?? "")}</GLOSA>${atencion}`;
  return statusAnswer(estado === "EPR" ? countsByType(envio) : "", hdr);
}

const UPLOAD_ERROR_PAGE =
  "<html><head><title>Error</title></head><body><h3>HA OCURRIDO UN ERROR EN EL UPLOAD DEL ARCHIVO DE DOCUMENTOS TRIBUTARIOS ELECTRONICOS</h3></body></html>";
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

function recepcion(fields: Record<string, string>, detail?: string): Response {
  const body = Object.entries(fields)
    .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
    .join("");
  const error = detail === undefined ? "" : `<DETAIL><ERROR>${escapeXml(detail)}</ERROR></DETAIL>`;
  return new Response(encodeLatin1(`<?xml version="1.0"?>\n<RECEPCIONDTE>${body}${error}</RECEPCIONDTE>`), {
    headers: { "content-type": "text/xml; charset=ISO-8859-1" },
  });
}

/** The verdict on one document of an accepted envelope: signature, then its folio at this SII, then its transfer data. */
function judge(state: SandboxState, ambiente: "0" | "1", doc: DocumentSummary): EnvioDocument {
  const verdict = (estado: EnvioDocument["estado"], motivo?: string) => ({ tipo: doc.tipo, folio: doc.folio, estado, motivo });
  if (!doc.firma?.valido) return verdict("RCH", "DTE-3-505 Firma DTE Incorrecta");
  const book = folioBook(state, ambiente, doc.emisor, doc.tipo);
  if (!book.ranges.some((r) => doc.folio >= r.desde && doc.folio <= r.hasta))
    return verdict("RCH", "CAF-3-517 Folio no autorizado para el emisor");
  if (book.annulled.has(doc.folio)) return verdict("RCH", "CAF-3-519 Folio anulado");
  if (book.used.has(doc.folio)) return verdict("RCH", "DTE-3-101 Documento ya recibido (folio repetido)");
  const transfer = transferMotivo(doc);
  return transfer ? verdict("RCH", transfer) : verdict("DOK");
}

export interface Arrival {
  ambiente: "0" | "1";
  report: EnvelopeReport;
  bytes: Uint8Array;
  sender: string;
  company: string;
  file: string;
  now: number;
  /** Boleta track ids come from their own series. */
  boleta?: boolean;
}

/**
 * Records an envelope the SII took: refused as a whole (signature RFR, carátula RCT, schema RSC)
 * or judged document by document; accepted documents' folios become used and their receivers
 * may act on them. The same file twice is not recorded again.
 */
export async function receiveEnvelope(state: SandboxState, arrival: Arrival): Promise<{ trackId: string } | { duplicateOf: string }> {
  const { ambiente, report, now } = arrival;
  const digest = bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", arrival.bytes)));
  const earlier = [...state.envios.values()].find((e) => e.ambiente === ambiente && e.digest === digest);
  if (earlier) return { duplicateOf: earlier.trackId };

  const series = (arrival.boleta ? 9_100_000 : 260_100_000) + (ambiente === "0" ? 0 : 1_000_000_000);
  const trackId = String(series + state.envios.size).padStart(10, "0");
  const envelopeProblem = report.problems.find((p) => !p.path.startsWith("SetDTE/DTE[") || !p.path.endsWith("/Signature"));
  const rejection = !report.firma?.valido
    ? "RFR"
    : envelopeProblem?.path.includes("Caratula") || envelopeProblem?.path.includes("RUTEmisor")
      ? "RCT"
      : envelopeProblem
        ? "RSC"
        : undefined;
  const documents = report.documentos.map((doc) =>
    rejection ? { tipo: doc.tipo, folio: doc.folio, estado: "RCH" as const } : judge(state, ambiente, doc),
  );
  state.envios.set(trackId, {
    trackId,
    ambiente,
    emisor: arrival.company,
    sender: arrival.sender,
    file: arrival.file,
    received: now,
    rejection,
    detail: envelopeProblem ? `${envelopeProblem.path}: ${envelopeProblem.message}` : undefined,
    digest,
    boleta: arrival.boleta,
    documents,
  });
  if (ambiente === "1") {
    const cases = report.documentos.flatMap((d) =>
      d.razonesReferencia.flatMap((r) => [...r.matchAll(/CASO\s+(\d+-\d+)/gi)].map((m) => m[1] ?? "")),
    );
    noteCertificationEnvelope(state, arrival.company, trackId, cases);
  }
  report.documentos.forEach((doc, i) => {
    if (documents[i]?.estado !== "DOK") return;
    folioBook(state, ambiente, doc.emisor, doc.tipo).used.add(doc.folio);
    state.received.set(receivedKey(ambiente, doc.emisor, doc.tipo, doc.folio), {
      emisor: doc.emisor,
      receptor: doc.receptor,
      tipo: doc.tipo,
      folio: doc.folio,
      recibido: now,
      events: [],
      fecha: doc.fecha_emision,
      monto: doc.monto_total,
      firma: doc.signatureValue ?? undefined,
      trackId,
    });
  });
  return { trackId };
}

/** DTEUpload: multipart rutSender, dvSender, rutCompany, dvCompany, archivo; the TOKEN cookie. */
export async function dteUpload(c: Context, state: SandboxState, ambiente: "0" | "1", now: number): Promise<Response> {
  if (!/PROG 1\.0/.test(c.req.header("user-agent") ?? "")) return latin1Html(UPLOAD_ERROR_PAGE);
  const form = await c.req.parseBody();
  const sender = `${form.rutSender ?? ""}-${String(form.dvSender ?? "").toUpperCase()}`;
  const company = `${form.rutCompany ?? ""}-${String(form.dvCompany ?? "").toUpperCase()}`;
  const archivo = form.archivo;
  const timestamp = santiagoDateTime(new Date(now));
  const base = { RUTSENDER: sender, RUTCOMPANY: company, FILE: archivo instanceof File ? archivo.name : "", TIMESTAMP: timestamp };

  const token = /(?:^|;\s*)TOKEN=([^;]+)/.exec(c.req.header("cookie") ?? "")?.[1];
  const issued = token ? state.tokens.get(token) : undefined;
  if (!issued || issued.expiresAt < now || issued.ambiente !== ambiente) return recepcion({ ...base, STATUS: "5" });
  if (!(archivo instanceof File)) return recepcion({ ...base, STATUS: "7" }, "SCH-00001: no se recibio el archivo");
  if (issued.rut !== sender) return recepcion({ ...base, STATUS: "1" });
  if (!mayActFor(sender, company)) return recepcion({ ...base, STATUS: "1" });
  if (!sandboxTaxpayer(company)?.dte_issuer) return recepcion({ ...base, STATUS: "6" });
  const bytes = new Uint8Array(await archivo.arrayBuffer());
  if (bytes.length > MAX_UPLOAD_BYTES) return recepcion({ ...base, STATUS: "2" });

  let report: Awaited<ReturnType<typeof inspectEnvelope>>;
  try {
    report = await inspectEnvelope(bytes);
  } catch (err) {
    if (!(err instanceof EnvelopeUnreadable)) throw err;
    return recepcion({ ...base, STATUS: "7" }, `SCH-00001: ${err.message}`);
  }
  if (report.kind !== "EnvioDTE") return recepcion({ ...base, STATUS: "7" }, "SCH-00001: Invalid Schema Name");

  const received = await receiveEnvelope(state, { ambiente, report, bytes, sender, company, file: base.FILE, now });
  if ("duplicateOf" in received) {
    return recepcion(
      { ...base, STATUS: "99" },
      // The track id as it was first answered, leading zeros included: clients compare it as text.
      `Archivo ya fue enviado con Trackid ${received.duplicateOf}. Debe esperar 900 segundos antes de reintentar`,
    );
  }
  const trackId = received.trackId;
  return recepcion({ ...base, STATUS: "0", TRACKID: trackId });
}

/**
 * QueryEstDteAv getEstDteAv: whether the SII received this document with these data and this
 * signature. The document's state goes in RESP_HDR with ERR_CODE and GLOSA_ERR, RECIBIDO and
 * TRACKID in RESP_BODY (LibreDTE ValidateDocumentSignatureResponse.php reads ESTADO from the header
 * first; ERR_CODE 2 "Token no existe", 9 "Usuario no autorizado en empresa"). Glosas inferred.
 */
export function queryEstDteAv(state: SandboxState, requestXml: string, ambiente: "0" | "1", now: number): Response {
  const field = (name: string) => (elementText(requestXml, name) ?? "").trim();
  const answer = (hdr: string, body = "") =>
    soapReturn(
      "getEstDteAv",
      `<?xml version="1.0" encoding="UTF-8"?><SII:RESPUESTA xmlns:SII="http://www.sii.cl/XMLSchema"><SII:RESP_BODY>${body}</SII:RESP_BODY><SII:RESP_HDR>${hdr}</SII:RESP_HDR></SII:RESPUESTA>`,
    );
  const failure = (code: string, glosa: string) => answer(`<ERR_CODE>${code}</ERR_CODE><GLOSA_ERR>${escapeXml(glosa)}</GLOSA_ERR>`);
  const token = state.tokens.get(field("Token"));
  if (!token || token.expiresAt < now || token.ambiente !== ambiente) return failure("2", "Token no existe");
  const emisor = `${field("RutEmpresa")}-${field("DvEmpresa").toUpperCase()}`;
  const receptor = `${field("RutReceptor")}-${field("DvReceptor").toUpperCase()}`;
  if (!mayActFor(token.rut, emisor) && !mayActFor(token.rut, receptor)) return failure("9", "Usuario no autorizado en empresa");
  const tipo = Number(field("TipoDte"));
  const folio = Number(field("FolioDte"));
  const atencion = `<NUM_ATENCION>${(now % 100000).toString().padStart(5, "0")}</NUM_ATENCION>`;
  const result = (recibido: boolean, estado: string, glosa: string, trackId = "") =>
    answer(
      `<ESTADO>${estado}</ESTADO><GLOSA_ERR>${escapeXml(glosa)}</GLOSA_ERR><ERR_CODE>0</ERR_CODE>${atencion}`,
      `<RECIBIDO>${recibido ? "SI" : "NO"}</RECIBIDO><TRACKID>${trackId}</TRACKID>`,
    );
  if (folioBook(state, ambiente, emisor, tipo).annulled.has(folio)) return result(false, "FAN", "Folio Anulado");
  const document = state.received.get(receivedKey(ambiente, emisor, tipo, folio));
  if (!document) return result(false, "FAU", "DTE No Recibido");
  const fecha = field("FechaEmisionDte"); // DDMMYYYY
  const matches =
    document.receptor === receptor &&
    (document.fecha === undefined || document.fecha === `${fecha.slice(4)}-${fecha.slice(2, 4)}-${fecha.slice(0, 2)}`) &&
    (document.monto === undefined || document.monto === Number(field("MontoDte"))) &&
    (document.firma === undefined || document.firma === field("FirmaDte").replace(/\s+/g, ""));
  return matches
    ? result(true, "DOK", "Documento Recibido por el SII. Datos Coinciden con los Registrados", document.trackId)
    : result(true, "DNK", "Documento Recibido por el SII pero Datos NO Coinciden con los registrados", document.trackId);
}
