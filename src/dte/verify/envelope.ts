// What an uploaded EnvioDTE / EnvioBOLETA (or a lone DTE) holds, and what is wrong with it before
// it goes to the SII: well-formed ISO-8859-1 XML, a carátula that agrees with its documents, the
// SII's limits per envelope, and valid signatures (the envelope's and each document's).
import { unsafeXmlReason } from "../xml/guard.ts";
import {
  childElements,
  childText,
  decodeXmlBytes,
  findChild,
  localName,
  parseXml,
  type XmlDocument,
  type XmlElement,
  XmlParseError,
} from "../xml/parse.ts";
import { type SignatureCheck, verifySignatures } from "./xmldsig.ts";

/** Documents per envelope the SII takes: DTEUpload (LibreDTE's limit) and the boleta service. */
export const MAX_DOCUMENTS = { EnvioDTE: 2000, EnvioBOLETA: 500 } as const;

export interface DocumentSummary {
  /** The Documento's ID (what its signature refers to). */
  id: string;
  tipo: number;
  folio: number;
  emisor: string;
  receptor: string;
  fecha_emision: string;
  monto_total: number;
  /** The DTE element (with its TED and signature). */
  element: XmlElement;
  /** The DTE's text exactly as in the file (the stamp's signed bytes are checked on it). */
  raw: string;
  /** The document's SignatureValue (what the SII's advanced status query compares). */
  signatureValue: string | null;
  /** The RazonRef of each Referencia (certification cases are named there: `CASO 4943173-1`). */
  razonesReferencia: string[];
  firma: SignatureCheck | null;
}

export interface Caratula {
  rut_emisor: string;
  rut_envia: string;
  rut_receptor: string;
  fecha_resolucion: string;
  numero_resolucion: number;
  subtotales: { tipo: number; cantidad: number }[];
}

export interface EnvelopeReport {
  kind: "EnvioDTE" | "EnvioBOLETA" | "DTE";
  /** The file as uploaded (what is sent on, never re-serialized). */
  bytes: Uint8Array<ArrayBuffer>;
  doc: XmlDocument;
  /** The decoded text (ISO-8859-1 or UTF-8, as declared). */
  text: string;
  encoding: string;
  caratula: Caratula | null;
  firma: SignatureCheck | null;
  documentos: DocumentSummary[];
  /** Each problem as `{path, message}`, the path inside the XML. */
  problems: { path: string; message: string }[];
}

/** Thrown when the bytes are not an XML document this gateway can read. */
export class EnvelopeUnreadable extends Error {}

function summarize(dte: XmlElement, raw: string): Omit<DocumentSummary, "firma"> {
  const documento = childElements(dte).find((c) => ["Documento", "Liquidacion", "Exportaciones"].includes(localName(c.name)));
  const encabezado = findChild(documento, "Encabezado");
  return {
    id: documento?.attributes.find((a) => a.name === "ID")?.value ?? "",
    tipo: Number(childText(encabezado, "IdDoc", "TipoDTE")),
    folio: Number(childText(encabezado, "IdDoc", "Folio")),
    emisor: childText(encabezado, "Emisor", "RUTEmisor").toUpperCase(),
    receptor: childText(encabezado, "Receptor", "RUTRecep").toUpperCase(),
    fecha_emision: childText(encabezado, "IdDoc", "FchEmis"),
    monto_total: Number(childText(encabezado, "Totales", "MntTotal") || 0),
    element: dte,
    raw,
    signatureValue: childText(dte, "Signature", "SignatureValue").replace(/\s+/g, "") || null,
    razonesReferencia: (documento ? childElements(documento) : [])
      .filter((c) => localName(c.name) === "Referencia")
      .map((r) => childText(r, "RazonRef")),
  };
}

function readCaratula(caratula: XmlElement | undefined): Caratula | null {
  if (!caratula) return null;
  return {
    rut_emisor: childText(caratula, "RutEmisor").toUpperCase(),
    rut_envia: childText(caratula, "RutEnvia").toUpperCase(),
    rut_receptor: childText(caratula, "RutReceptor").toUpperCase(),
    fecha_resolucion: childText(caratula, "FchResol"),
    numero_resolucion: Number(childText(caratula, "NroResol")),
    subtotales: childElements(caratula)
      .filter((c) => localName(c.name) === "SubTotDTE")
      .map((s) => ({ tipo: Number(childText(s, "TpoDTE")), cantidad: Number(childText(s, "NroDTE")) })),
  };
}

export interface EnvelopeContents {
  kind: EnvelopeReport["kind"];
  /** The file as uploaded (what is sent on, never re-serialized). */
  bytes: Uint8Array<ArrayBuffer>;
  doc: XmlDocument;
  text: string;
  encoding: string;
  /** The SetDTE element (undefined for a lone DTE, or an envelope without one). */
  setDte: XmlElement | undefined;
  /** Each DTE with its text exactly as in the file. */
  dtes: { element: XmlElement; raw: string }[];
  caratula: Caratula | null;
}

const DTE_OPEN = /<(?:[\w.-]+:)?DTE[\s>]/g;
const DTE_CLOSE = /<\/(?:[\w.-]+:)?DTE>/g;

/**
 * The text of each `<DTE …>…</DTE>`, each closing tag searched for once from its opening: a lazy
 * `[\s\S]*?` between them rescanned the rest of the file from every `<DTE ` left unclosed (say, in
 * a comment), quadratic in the upload.
 */
function dteTexts(text: string): string[] {
  const raws: string[] = [];
  DTE_OPEN.lastIndex = 0;
  for (let open = DTE_OPEN.exec(text); open; open = DTE_OPEN.exec(text)) {
    DTE_CLOSE.lastIndex = DTE_OPEN.lastIndex;
    const close = DTE_CLOSE.exec(text);
    // No closing tag after this opening: none after a later one either.
    if (!close) break;
    raws.push(text.slice(open.index, DTE_CLOSE.lastIndex));
    DTE_OPEN.lastIndex = DTE_CLOSE.lastIndex;
  }
  return raws;
}

/** Reads an envelope or a lone DTE without checking it. Throws EnvelopeUnreadable when it is not readable XML. */
export function readEnvelope(bytes: Uint8Array<ArrayBuffer>): EnvelopeContents {
  let text: string;
  let doc: XmlDocument;
  try {
    text = decodeXmlBytes(bytes);
    const unsafe = unsafeXmlReason(text);
    if (unsafe) throw new EnvelopeUnreadable(unsafe);
    doc = parseXml(text);
  } catch (err) {
    if (err instanceof XmlParseError) throw new EnvelopeUnreadable(`not well-formed XML: ${err.message}`);
    throw err;
  }
  const encoding = (doc.declaration?.encoding ?? "UTF-8").toUpperCase();
  const rootName = localName(doc.root.name);
  if (rootName !== "EnvioDTE" && rootName !== "EnvioBOLETA" && rootName !== "DTE") {
    throw new EnvelopeUnreadable(`the root element is <${rootName}>, not EnvioDTE, EnvioBOLETA or DTE`);
  }
  const kind = rootName as EnvelopeReport["kind"];
  const setDte = kind === "DTE" ? undefined : findChild(doc.root, "SetDTE");
  const elements = kind === "DTE" ? [doc.root] : setDte ? childElements(setDte).filter((c) => localName(c.name) === "DTE") : [];
  // DTE elements never nest, so their texts are found in document order.
  const raws = dteTexts(text);
  const dtes = elements.map((element, i) => ({ element, raw: raws[i] ?? "" }));
  return { kind, bytes, doc, text, encoding, setDte, dtes, caratula: readCaratula(findChild(setDte, "Caratula")) };
}

/** Reads and checks an envelope or a lone DTE. Throws EnvelopeUnreadable when it is not readable XML. */
export async function inspectEnvelope(bytes: Uint8Array<ArrayBuffer>): Promise<EnvelopeReport> {
  const { kind, doc, text, encoding, setDte, dtes, caratula } = readEnvelope(bytes);
  const problems: EnvelopeReport["problems"] = [];
  const signatures = await verifySignatures(doc);
  const signatureFor = (id: string) => signatures.find((s) => s.referencia === `#${id}`) ?? null;

  const documentos = dtes.map(({ element, raw }) => {
    const summary = summarize(element, raw);
    return { ...summary, firma: signatureFor(summary.id) };
  });
  documentos.forEach((d, i) => {
    const path = kind === "DTE" ? "DTE" : `SetDTE/DTE[${i + 1}]`;
    if (!d.id) problems.push({ path: `${path}/Documento`, message: "has no ID" });
    if (!Number.isInteger(d.tipo) || d.tipo <= 0)
      problems.push({ path: `${path}/Documento/Encabezado/IdDoc/TipoDTE`, message: "is missing or not a number" });
    if (!Number.isInteger(d.folio) || d.folio <= 0)
      problems.push({ path: `${path}/Documento/Encabezado/IdDoc/Folio`, message: "is missing or not a number" });
    if (!d.firma) problems.push({ path: `${path}/Signature`, message: "the document is not signed" });
    else if (!d.firma.valido)
      problems.push({ path: `${path}/Signature`, message: `the document's signature is not valid: ${d.firma.motivo}` });
  });

  if (kind === "DTE") return { kind, bytes, doc, text, encoding, caratula: null, firma: null, documentos, problems };

  if (encoding !== "ISO-8859-1") problems.push({ path: "<?xml?>", message: `the SII takes ISO-8859-1 files; this one is ${encoding}` });
  const setId = setDte?.attributes.find((a) => a.name === "ID")?.value ?? "";
  if (!setDte) problems.push({ path: "SetDTE", message: "is missing" });
  else if (!setId) problems.push({ path: "SetDTE/@ID", message: "is missing (the envelope's signature refers to it)" });
  const firma = setId ? signatureFor(setId) : null;
  if (setDte && !firma) problems.push({ path: "Signature", message: "the envelope is not signed" });
  else if (firma && !firma.valido) problems.push({ path: "Signature", message: `the envelope's signature is not valid: ${firma.motivo}` });

  if (!caratula) problems.push({ path: "SetDTE/Caratula", message: "is missing" });
  if (documentos.length === 0) problems.push({ path: "SetDTE/DTE", message: "the envelope holds no documents" });
  if (documentos.length > MAX_DOCUMENTS[kind]) {
    problems.push({
      path: "SetDTE/DTE",
      message: `${documentos.length} documents; the SII takes at most ${MAX_DOCUMENTS[kind]} per ${kind}`,
    });
  }
  if (caratula) {
    const counts = new Map<number, number>();
    for (const d of documentos) counts.set(d.tipo, (counts.get(d.tipo) ?? 0) + 1);
    const declared = new Map(caratula.subtotales.map((s) => [s.tipo, s.cantidad]));
    for (const [tipo, count] of counts) {
      if (declared.get(tipo) !== count) {
        problems.push({
          path: "SetDTE/Caratula/SubTotDTE",
          message: `says ${declared.get(tipo) ?? 0} documents of type ${tipo}; the envelope has ${count}`,
        });
      }
    }
    for (const [tipo, cantidad] of declared) {
      if (!counts.has(tipo))
        problems.push({ path: "SetDTE/Caratula/SubTotDTE", message: `says ${cantidad} documents of type ${tipo}; the envelope has none` });
    }
    documentos.forEach((d, i) => {
      if (d.emisor !== caratula.rut_emisor) {
        problems.push({
          path: `SetDTE/DTE[${i + 1}]/Documento/Encabezado/Emisor/RUTEmisor`,
          message: `is ${d.emisor}; the carátula's RutEmisor is ${caratula.rut_emisor}`,
        });
      }
    });
    if (firma?.valido && firma.firmante?.rut && firma.firmante.rut !== caratula.rut_envia) {
      problems.push({
        path: "SetDTE/Caratula/RutEnvia",
        message: `is ${caratula.rut_envia}, but the envelope was signed by ${firma.firmante.rut}`,
      });
    }
  }
  return { kind, bytes, doc, text, encoding, caratula, firma, documentos, problems };
}
