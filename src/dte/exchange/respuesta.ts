// RespuestaDTE (RespuestaEnvioDTE_v10.xsd): what a receiver answers the issuer who mailed it an
// EnvioDTE. Either the receipt of envelopes and of each document in them (RecepcionEnvio), or the
// commercial result of documents (ResultadoDTE); never both in one answer. The whole Resultado is
// signed, the signature the root's last child. Pure: the caller passes the signer and the time.
import { canonicalOfOwnText, XML_DECLARATION } from "../generate/sign.ts";
import type { XmlSigner } from "../sign/xmldsig.ts";
import { ESTADO_DTE, ESTADO_RECEP_DTE, ESTADO_RECEP_ENV, type EstadoDte, type EstadoRecepDte, type EstadoRecepEnv } from "./codes.ts";
import {
  type AnswerParties,
  base64,
  code,
  contact,
  type DocumentKey,
  dateTime,
  digitsMax,
  documentKey,
  entries,
  integer,
  MAX_DIGEST,
  MAX_ENTRIES,
  note,
  type Problems,
  rut,
  stamp,
  text,
} from "./fields.ts";
import { refuseIfAny, rootOpen, signPart } from "./signed.ts";

/** The Caratula of an answer: its parties and its number. */
export interface RespuestaHeader extends AnswerParties {
  /** IdRespuesta: the answer's own number, unique among the responder's answers (1 to 10 digits). */
  answerId: number;
}

/** RecepcionDTE: the receipt of one document of an envelope. */
export interface ReceivedDocument extends DocumentKey {
  /** EstadoRecepDTE (ESTADO_RECEP_DTE). */
  status: EstadoRecepDte;
  /** RecepDTEGlosa (at most 256 characters): the status's meaning when not given. */
  note?: string;
}

/** RecepcionEnvio: the receipt of one envelope. */
export interface ReceivedEnvelope {
  /** NmbEnvio: the name of the file it came in (at most 80 characters). */
  fileName: string;
  /** FchRecep: when it was received, an instant or Chile's local `YYYY-MM-DDTHH:MM:SS`. */
  receivedAt: Date | string;
  /** CodEnvio: the receiver's own number for the envelope (1 to 10 digits); a ResultadoDTE names it again. */
  envelopeCode: number;
  /** EnvioDTEID: the ID of the envelope's SetDTE (at most 80 characters). */
  envelopeId: string;
  /** Digest: the DigestValue of the envelope's signature, base64. */
  digest?: string;
  /** RutEmisor: the issuer the envelope's Caratula names. */
  issuer?: string;
  /** RutReceptor: the receiver the envelope's Caratula names. */
  receiver?: string;
  /** EstadoRecepEnv (ESTADO_RECEP_ENV). */
  status: EstadoRecepEnv;
  /** RecepEnvGlosa (at most 256 characters): the status's meaning when not given. */
  note?: string;
  /** RecepcionDTE, one per document (none for an envelope refused whole); NroDTE is their count. */
  documents: ReceivedDocument[];
}

export interface RespuestaEnvioInput {
  header: RespuestaHeader;
  /** RecepcionEnvio, one or more; NroDetalles is their count. */
  envelopes: ReceivedEnvelope[];
}

/** ResultadoDTE: the commercial result of one document. */
export interface DocumentResult extends DocumentKey {
  /** CodEnvio: the number the receipt gave the envelope the document came in (1 to 10 digits). */
  envelopeCode: number;
  /** EstadoDTE (ESTADO_DTE). */
  status: EstadoDte;
  /** EstadoDTEGlosa (at most 256 characters): the status's meaning when not given. */
  note?: string;
  /** CodRchDsc: the reason of a rejection or discrepancy, a negative code from -1 to -999. */
  reasonCode?: number;
}

export interface ResultadoDteInput {
  header: RespuestaHeader;
  /** ResultadoDTE, one or more; NroDetalles is their count. */
  documents: DocumentResult[];
}

/** The Resultado's ID (an xs:ID), unique to the answer through its number. */
const resultadoId = (answerId: number) => `Resultado${answerId}`;

function caratula(problems: Problems, header: RespuestaHeader, details: number, signedAt: string): string {
  return (
    '<Caratula version="1.0">' +
    rut(problems, "header.responder", "RutResponde", header.responder) +
    rut(problems, "header.recipient", "RutRecibe", header.recipient) +
    integer(problems, "header.answerId", "IdRespuesta", header.answerId, 1, digitsMax(10), "a positive integer of 10 digits") +
    (details > 0 ? `<NroDetalles>${details}</NroDetalles>` : "") +
    contact(problems, "header", header) +
    `<TmstFirmaResp>${signedAt}</TmstFirmaResp></Caratula>`
  );
}

function recepcionDte(problems: Problems, at: string, doc: ReceivedDocument): string {
  return (
    "<RecepcionDTE>" +
    documentKey(problems, at, doc, "TipoDTE") +
    code(problems, `${at}.status`, "EstadoRecepDTE", doc.status, ESTADO_RECEP_DTE) +
    note(problems, `${at}.note`, "RecepDTEGlosa", doc.note, doc.status, ESTADO_RECEP_DTE) +
    "</RecepcionDTE>"
  );
}

function recepcionEnvio(problems: Problems, at: string, envelope: ReceivedEnvelope, documents: [number, ReceivedDocument][]): string {
  return (
    "<RecepcionEnvio>" +
    text(problems, `${at}.fileName`, "NmbEnvio", envelope.fileName, 80) +
    dateTime(problems, `${at}.receivedAt`, "FchRecep", envelope.receivedAt) +
    integer(problems, `${at}.envelopeCode`, "CodEnvio", envelope.envelopeCode, 1, digitsMax(10), "a positive integer of 10 digits") +
    text(problems, `${at}.envelopeId`, "EnvioDTEID", envelope.envelopeId, 80) +
    base64(problems, `${at}.digest`, "Digest", envelope.digest, MAX_DIGEST) +
    rut(problems, `${at}.issuer`, "RutEmisor", envelope.issuer, false) +
    rut(problems, `${at}.receiver`, "RutReceptor", envelope.receiver, false) +
    code(problems, `${at}.status`, "EstadoRecepEnv", envelope.status, ESTADO_RECEP_ENV) +
    note(problems, `${at}.note`, "RecepEnvGlosa", envelope.note, envelope.status, ESTADO_RECEP_ENV) +
    // NroDTE is a positiveInteger: an envelope refused whole lists no documents and leaves it out.
    (documents.length > 0 ? `<NroDTE>${documents.length}</NroDTE>` : "") +
    documents.map(([i, doc]) => recepcionDte(problems, `${at}.documents[${i}]`, doc)).join("") +
    "</RecepcionEnvio>"
  );
}

function resultado(problems: Problems, at: string, doc: DocumentResult): string {
  return (
    "<ResultadoDTE>" +
    documentKey(problems, at, doc, "TipoDTE") +
    integer(problems, `${at}.envelopeCode`, "CodEnvio", doc.envelopeCode, 1, digitsMax(10), "a positive integer of 10 digits") +
    code(problems, `${at}.status`, "EstadoDTE", doc.status, ESTADO_DTE) +
    note(problems, `${at}.note`, "EstadoDTEGlosa", doc.note, doc.status, ESTADO_DTE) +
    (doc.reasonCode === undefined
      ? ""
      : integer(problems, `${at}.reasonCode`, "CodRchDsc", doc.reasonCode, -digitsMax(3), -1, "a negative integer of 3 digits")) +
    "</ResultadoDTE>"
  );
}

/** The signed answer: the Resultado's content checked, written, signed in place. */
async function signed(header: RespuestaHeader, body: string, signer: XmlSigner): Promise<string> {
  const id = resultadoId(header.answerId);
  const signature = await signPart("Resultado", id, [canonicalOfOwnText(body)], signer);
  return `${XML_DECLARATION}${rootOpen("RespuestaDTE", "RespuestaEnvioDTE_v10.xsd")}<Resultado ID="${id}">${body}</Resultado>${signature}</RespuestaDTE>`;
}

/**
 * The receipt of one or more envelopes (RecepcionEnvio) and of each of their documents, signed at
 * `now`; at most MAX_ENTRIES documents in all. Refuses (DteError, every field named) what the schema would.
 */
export async function respuestaEnvio(input: RespuestaEnvioInput, signer: XmlSigner, now: Date): Promise<string> {
  const problems: Problems = [];
  const envelopes = entries<ReceivedEnvelope>(problems, "envelopes", input.envelopes, "envelopes");
  const documents = envelopes.map(([i, envelope]) =>
    entries<ReceivedDocument>(problems, `envelopes[${i}].documents`, envelope.documents, "documents", MAX_ENTRIES, 0),
  );
  const count = documents.reduce((sum, list) => sum + list.length, 0);
  if (count > MAX_ENTRIES)
    problems.push({ path: "envelopes", message: `hold ${count} documents; an answer carries at most ${MAX_ENTRIES}` });
  const header = input.header ?? ({} as RespuestaHeader);
  let body = caratula(problems, header, envelopes.length, stamp(now));
  if (count <= MAX_ENTRIES)
    body += envelopes.map(([i, envelope], k) => recepcionEnvio(problems, `envelopes[${i}]`, envelope, documents[k] ?? [])).join("");
  refuseIfAny(problems);
  return signed(header, body, signer);
}

/**
 * The commercial result (ResultadoDTE) of one or more documents, at most MAX_ENTRIES, signed at
 * `now`. Refuses (DteError, every field named) what the schema would.
 */
export async function resultadoDte(input: ResultadoDteInput, signer: XmlSigner, now: Date): Promise<string> {
  const problems: Problems = [];
  const documents = entries<DocumentResult>(problems, "documents", input.documents, "documents");
  const header = input.header ?? ({} as RespuestaHeader);
  const body =
    caratula(problems, header, documents.length, stamp(now)) +
    documents.map(([i, doc]) => resultado(problems, `documents[${i}]`, doc)).join("");
  refuseIfAny(problems);
  return signed(header, body, signer);
}
