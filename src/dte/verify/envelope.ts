// What an uploaded EnvioDTE / EnvioBOLETA (or a lone DTE) holds, and what is wrong with it before
// it goes to the SII: well-formed ISO-8859-1 XML, a carátula that agrees with its documents, the
// SII's limits per envelope, and valid signatures (the envelope's and each document's). The file is
// parsed once; each DTE is read as its one Documento (or Liquidacion / Exportaciones), and that
// node is what its signature must cover and what every reader (summary, stamp check, conversion,
// rendering) takes. Shapes that let a reader and a verifier see different nodes (an element the
// SII's schemas do not place in a DTE, an ID carried twice, a key field given twice) are findings.

import { nextTurn, type Pause, yielder } from "../../lib/yielder.ts";
import { type ScreenVisitor, unsafeXmlReason, unsafeXmlReasonAsync } from "../xml/guard.ts";
import {
  childElements,
  childText,
  decodeXmlBytes,
  decodeXmlBytesAsync,
  findChild,
  localName,
  parseXml,
  parseXmlAsync,
  type XmlDocument,
  type XmlElement,
  XmlParseError,
} from "../xml/parse.ts";
import { checkSignature, type IdIndex, indexIdsAsync, type SignatureCheck, walk } from "./xmldsig.ts";

/**
 * Documents per envelope the SII takes. EnvioDTE: 2 000, the `DTE maxOccurs` of the SII's
 * EnvioDTE_v10.xsd and LibreDTE's `Enum/TipoSobre.php` (`DTE_max`). EnvioBOLETA: 500, the `DTE
 * maxOccurs` of the SII's EnvioBOLETA_v11.xsd, the schema the boleta service validates uploads
 * against; LibreDTE's `TipoSobre.php` says 1 000, an envelope the schema refuses, and
 * devlas-cl/dte-sii (`Envio.js`) sets no limit, so the schema decides.
 */
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
  /** Its one Documento, Liquidacion or Exportaciones: the node its signature was checked on. */
  documento: XmlElement;
  /** The document's SignatureValue (what the SII's advanced status query compares). */
  signatureValue: string | null;
  /** The RazonRef of each Referencia (certification cases are named there: `CASO 4943173-1`). */
  razonesReferencia: string[];
  firma: SignatureCheck | null;
  /** What the envelope says against this document (its type and folio given again by another DTE). */
  hallazgos: string[];
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
  encoding: string;
  caratula: Caratula | null;
  firma: SignatureCheck | null;
  documentos: DocumentSummary[];
  /** Each problem as `{path, message}`, the path inside the XML. */
  problems: { path: string; message: string }[];
  /**
   * The problems of coherence among them (also in `problems`): what the file says against itself
   * beyond each signature's own check (the carátula against its documents and its signer, IDs,
   * counts, the encoding). A verification that passes over one of them vouches for nothing.
   */
  hallazgos: { path: string; message: string }[];
}

/** Thrown when the bytes are not an XML document this gateway can read. */
export class EnvelopeUnreadable extends Error {}

function summarize({ element, documento }: DteEntry): Omit<DocumentSummary, "firma" | "hallazgos"> {
  const encabezado = findChild(documento, "Encabezado");
  return {
    id: documento.attributes.find((a) => a.name === "ID")?.value ?? "",
    tipo: Number(childText(encabezado, "IdDoc", "TipoDTE")),
    folio: Number(childText(encabezado, "IdDoc", "Folio")),
    emisor: childText(encabezado, "Emisor", "RUTEmisor").toUpperCase(),
    receptor: childText(encabezado, "Receptor", "RUTRecep").toUpperCase(),
    fecha_emision: childText(encabezado, "IdDoc", "FchEmis"),
    monto_total: Number(childText(encabezado, "Totales", "MntTotal") || 0),
    element,
    documento,
    signatureValue: childText(element, "Signature", "SignatureValue").replace(/\s+/g, "") || null,
    razonesReferencia: childElements(documento)
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

/** One DTE of the file, as every reader takes it. */
export interface DteEntry {
  element: XmlElement;
  /** Its one Documento, Liquidacion or Exportaciones. */
  documento: XmlElement;
  /** Its ancestors, root first (the namespace scope its signature is checked in). */
  ancestors: XmlElement[];
}

export interface EnvelopeContents {
  kind: EnvelopeReport["kind"];
  /** The file as uploaded (what is sent on, never re-serialized). */
  bytes: Uint8Array<ArrayBuffer>;
  /** The parsed file: every reader of this upload reads this tree, and signed texts are its nodes' source. */
  doc: XmlDocument;
  encoding: string;
  /** The SetDTE element (undefined for a lone DTE, or an envelope without one). */
  setDte: XmlElement | undefined;
  dtes: DteEntry[];
  caratula: Caratula | null;
}

const CONTENTS = ["Documento", "Liquidacion", "Exportaciones"];
/** Elements that, found outside a DTE's Documento and Signature, could be read or verified in their place. */
const WRAPPING_NAMES = new Set([...CONTENTS, "DTE", "Signature", "Encabezado", "TED"]);

/** The parser's refusal as EnvelopeUnreadable (any other error as it is). */
function unreadable(err: unknown): never {
  if (err instanceof XmlParseError) throw new EnvelopeUnreadable(`not well-formed XML: ${err.message}`);
  throw err;
}

function screened(text: string): string {
  const unsafe = unsafeXmlReason(text);
  if (unsafe) throw new EnvelopeUnreadable(unsafe);
  return text;
}

/** Reads an envelope or a lone DTE without checking it, in one synchronous step (small uploads). Throws EnvelopeUnreadable when it is not readable XML. */
export function readEnvelope(bytes: Uint8Array<ArrayBuffer>): EnvelopeContents {
  let doc: XmlDocument;
  try {
    doc = parseXml(screened(decodeXmlBytes(bytes)));
  } catch (err) {
    unreadable(err);
  }
  return contentsOf(bytes, doc);
}

/** A pause for reading an upload: slices of at most 10 ms, or 10 calls where the clock stands still (Workers). */
export const readingPause = (): Pause => yielder(10, 10);

/**
 * Decides, before the parse, whether an upload is worth it (and takes what it costs): called with
 * its kind and the Detalle lines of each of its DTEs as the screen counted them (throw to refuse it).
 */
export type AdmitUpload = (kind: EnvelopeReport["kind"], detalle: readonly number[]) => void | Promise<void>;

/**
 * Counts, as the screen passes, each DTE (one not inside another) and the Detalle lines of its
 * Documento: the elements two levels below the DTE named Detalle (a DTE's Documento, Liquidacion or
 * Exportaciones holds them, DTE_v10.xsd). The parse finds no DTE and no line the screen missed.
 */
function uploadCounter(): { root: () => string; detalle: number[]; visitor: ScreenVisitor } {
  let root = "";
  const detalle: number[] = [];
  let dteDepth = 0;
  const visitor: ScreenVisitor = {
    open(name, depth) {
      const local = localName(name);
      if (depth === 1 && !root) root = local;
      if (!dteDepth) {
        if (local === "DTE") {
          detalle.push(0);
          dteDepth = depth;
        }
      } else if (depth === dteDepth + 2 && local === "Detalle") detalle.push((detalle.pop() ?? 0) + 1);
    },
    close(depth) {
      if (depth === dteDepth) dteDepth = 0;
    },
  };
  return { root: () => root, detalle, visitor };
}

/** The kind of upload a root element makes, or EnvelopeUnreadable. */
function kindOf(rootName: string): EnvelopeReport["kind"] {
  if (rootName !== "EnvioDTE" && rootName !== "EnvioBOLETA" && rootName !== "DTE") {
    throw new EnvelopeUnreadable(`the root element is <${rootName}>, not EnvioDTE, EnvioBOLETA or DTE`);
  }
  return rootName;
}

/**
 * The same reading as `readEnvelope` in slices that yield (decoding by 256 KiB, the screen and the parse by the
 * thousand items): an envelope of 2 000 documents took 0.6–1.2 s in one step. `admit` sees what
 * the screen counted before the parse, the step that costs.
 */
export async function readEnvelopeAsync(
  bytes: Uint8Array<ArrayBuffer>,
  pause: Pause = readingPause(),
  admit?: AdmitUpload,
): Promise<EnvelopeContents> {
  let doc: XmlDocument;
  try {
    const text = await decodeXmlBytesAsync(bytes, nextTurn);
    await pause();
    const counted = uploadCounter();
    const unsafe = await unsafeXmlReasonAsync(text, pause, undefined, counted.visitor);
    if (unsafe) throw new EnvelopeUnreadable(unsafe);
    // No root element at all: the parser says why.
    if (admit && counted.root()) await admit(kindOf(counted.root()), counted.detalle);
    await pause();
    doc = await parseXmlAsync(text, { pause });
  } catch (err) {
    unreadable(err);
  }
  return contentsOf(bytes, doc);
}

/** What the parsed upload holds: its kind, its DTEs (each with its one Documento) and its carátula. */
function contentsOf(bytes: Uint8Array<ArrayBuffer>, doc: XmlDocument): EnvelopeContents {
  const encoding = (doc.declaration?.encoding ?? "UTF-8").toUpperCase();
  const kind = kindOf(localName(doc.root.name));
  const setDte = kind === "DTE" ? undefined : findChild(doc.root, "SetDTE");
  const elements = kind === "DTE" ? [doc.root] : setDte ? childElements(setDte).filter((c) => localName(c.name) === "DTE") : [];
  const ancestors = kind === "DTE" ? [] : [doc.root, setDte as XmlElement];
  const dtes = elements.map((element, i) => {
    const contents = childElements(element).filter((c) => CONTENTS.includes(localName(c.name)));
    if (contents.length !== 1) {
      throw new EnvelopeUnreadable(
        `DTE ${i + 1} must hold exactly one Documento, Liquidacion or Exportaciones (it holds ${contents.length})`,
      );
    }
    return { element, documento: contents[0] as XmlElement, ancestors };
  });
  return { kind, bytes, doc, encoding, setDte, dtes, caratula: readCaratula(findChild(setDte, "Caratula")) };
}

/** Fields a reader takes one of: given twice, a reader and the SII could each take another. */
const SINGLE_FIELDS = [
  ["Encabezado"],
  ["Encabezado", "IdDoc"],
  ["Encabezado", "IdDoc", "TipoDTE"],
  ["Encabezado", "IdDoc", "Folio"],
  ["Encabezado", "IdDoc", "FchEmis"],
  ["Encabezado", "Emisor"],
  ["Encabezado", "Emisor", "RUTEmisor"],
  ["Encabezado", "Receptor"],
  ["Encabezado", "Receptor", "RUTRecep"],
  ["Encabezado", "Totales"],
  ["Encabezado", "Totales", "MntTotal"],
];

/** What in a DTE's shape lets readers disagree on what it says; each as `{path, message}` under `path`. */
function shapeProblems({ element, documento }: DteEntry, path: string): EnvelopeReport["problems"] {
  const problems: EnvelopeReport["problems"] = [];
  // DTE_v10.xsd: a DTE is its Documento (or Liquidacion / Exportaciones) and one ds:Signature.
  const signatures = childElements(element).filter((c) => localName(c.name) === "Signature");
  // Real documents carry extra elements the SII accepts (a `DocPersonalizado` beside the signature);
  // one that holds a document, a signature or an ID is how a second Documento hides from a reader.
  for (const child of childElements(element)) {
    if (child === documento || localName(child.name) === "Signature") continue;
    const hidden = [...walk(child)].find(
      ({ element: e }) => WRAPPING_NAMES.has(localName(e.name)) || e.attributes.some((a) => a.name === "ID" || a.name === "Id"),
    );
    if (hidden) {
      problems.push({
        path: `${path}/${child.name}`,
        message: `holds <${hidden.element.name}>, outside the DTE's Documento and Signature (DTE_v10.xsd): a signature-wrapping shape`,
      });
    }
  }
  if (signatures.length > 1) problems.push({ path: `${path}/Signature`, message: `appears ${signatures.length} times; a DTE has one` });
  for (const fields of SINGLE_FIELDS) {
    const parent = findChild(documento, ...fields.slice(0, -1));
    const name = fields[fields.length - 1] as string;
    const count = parent ? childElements(parent).filter((c) => localName(c.name) === name).length : 0;
    if (count > 1)
      problems.push({
        path: `${path}/${localName(documento.name)}/${fields.join("/")}`,
        message: `appears ${count} times; it must appear once`,
      });
  }
  return problems;
}

/** Checks the DTE's own signature, which must cover its Documento and nothing else. */
async function documentSignature(entry: DteEntry, ids: IdIndex, root: XmlElement): Promise<SignatureCheck | null> {
  const signature = childElements(entry.element).find((c) => localName(c.name) === "Signature");
  if (!signature) return null;
  const check = await checkSignature({ element: signature, ancestors: [...entry.ancestors, entry.element] }, ids, root);
  if (check.valido && check.cubre !== entry.documento) {
    return {
      ...check,
      valido: false,
      motivo: `the signature covers ${check.referencia}, which is not this DTE's ${localName(entry.documento.name)}`,
    };
  }
  return check;
}

/**
 * Reads and checks an envelope or a lone DTE (or the contents already read from it), one document
 * at a time with a pause between them. Throws EnvelopeUnreadable when it is not readable XML.
 */
export async function inspectEnvelope(upload: Uint8Array<ArrayBuffer> | EnvelopeContents): Promise<EnvelopeReport> {
  const pause = readingPause();
  const contents = upload instanceof Uint8Array ? await readEnvelopeAsync(upload, pause) : upload;
  const { kind, bytes, doc, encoding, setDte, dtes, caratula } = contents;
  const problems: EnvelopeReport["problems"] = [];
  const hallazgos: EnvelopeReport["hallazgos"] = [];
  const found = (path: string, message: string) => {
    problems.push({ path, message });
    hallazgos.push({ path, message });
  };
  const ids = await indexIdsAsync(doc.root, pause);
  for (const [id, carriers] of ids) {
    if (carriers.length > 1) found(`@ID=${id}`, `is carried by ${carriers.length} elements; an ID names one`);
  }
  const pathOf = (i: number) => (kind === "DTE" ? "DTE" : `SetDTE/DTE[${i + 1}]`);

  const documentos: DocumentSummary[] = [];
  for (const [i, entry] of dtes.entries()) {
    await pause();
    const shape = shapeProblems(entry, pathOf(i));
    problems.push(...shape);
    const firma = await documentSignature(entry, ids, doc.root);
    // A shape readers could disagree on leaves the signature unable to vouch for what is reported.
    const vouched =
      firma && shape.length ? { ...firma, valido: false, motivo: shape.map((p) => `${p.path} ${p.message}`).join("; ") } : firma;
    documentos.push({ ...summarize(entry), firma: vouched, hallazgos: [] });
  }
  documentos.forEach((d, i) => {
    const path = pathOf(i);
    if (!d.id) found(`${path}/Documento`, "has no ID");
    if (!Number.isInteger(d.tipo) || d.tipo <= 0) found(`${path}/Documento/Encabezado/IdDoc/TipoDTE`, "is missing or not a number");
    if (!Number.isInteger(d.folio) || d.folio <= 0) found(`${path}/Documento/Encabezado/IdDoc/Folio`, "is missing or not a number");
    if (!d.firma) problems.push({ path: `${path}/Signature`, message: "the document is not signed" });
    else if (!d.firma.valido)
      problems.push({ path: `${path}/Signature`, message: `the document's signature is not valid: ${d.firma.motivo}` });
  });
  for (const [key, indexes] of repeatedFolios(documentos)) {
    const [tipo, folio] = key.split(":");
    const message = `type ${tipo}, folio ${folio} appears ${indexes.length} times in the envelope: a folio is used once`;
    problems.push({ path: indexes.map((i) => pathOf(i)).join(", "), message });
    for (const i of indexes) documentos[i]?.hallazgos.push(message);
  }

  if (kind === "DTE") return { kind, bytes, doc, encoding, caratula: null, firma: null, documentos, problems, hallazgos };

  if (encoding !== "ISO-8859-1") found("<?xml?>", `the SII takes ISO-8859-1 files; this one is ${encoding}`);
  const setId = setDte?.attributes.find((a) => a.name === "ID")?.value ?? "";
  if (!setDte) problems.push({ path: "SetDTE", message: "is missing" });
  else if (!setId) problems.push({ path: "SetDTE/@ID", message: "is missing (the envelope's signature refers to it)" });
  const firma = setDte ? await envelopeSignature(doc.root, setDte, ids) : null;
  if (setDte && !firma) problems.push({ path: "Signature", message: "the envelope is not signed" });
  else if (firma && !firma.valido) problems.push({ path: "Signature", message: `the envelope's signature is not valid: ${firma.motivo}` });

  if (!caratula) found("SetDTE/Caratula", "is missing");
  if (documentos.length === 0) found("SetDTE/DTE", "the envelope holds no documents");
  if (documentos.length > MAX_DOCUMENTS[kind])
    found("SetDTE/DTE", `${documentos.length} documents; the SII takes at most ${MAX_DOCUMENTS[kind]} per ${kind}`);
  if (caratula) {
    const counts = new Map<number, number>();
    for (const d of documentos) counts.set(d.tipo, (counts.get(d.tipo) ?? 0) + 1);
    const declared = new Map(caratula.subtotales.map((s) => [s.tipo, s.cantidad]));
    for (const [tipo, count] of counts) {
      if (declared.get(tipo) !== count)
        found("SetDTE/Caratula/SubTotDTE", `says ${declared.get(tipo) ?? 0} documents of type ${tipo}; the envelope has ${count}`);
    }
    for (const [tipo, cantidad] of declared) {
      if (!counts.has(tipo)) found("SetDTE/Caratula/SubTotDTE", `says ${cantidad} documents of type ${tipo}; the envelope has none`);
    }
    documentos.forEach((d, i) => {
      if (d.emisor !== caratula.rut_emisor)
        found(
          `SetDTE/DTE[${i + 1}]/Documento/Encabezado/Emisor/RUTEmisor`,
          `is ${d.emisor}; the carátula's RutEmisor is ${caratula.rut_emisor}`,
        );
    });
    // The signer's one RUT must be RutEnvia: a certificate naming none, or several, cannot be checked against it.
    const signerRut = firma?.valido ? firma.firmante?.rut : undefined;
    if (signerRut === null) found("SetDTE/Caratula/RutEnvia", "cannot be checked: the envelope's signer's certificate names no single RUT");
    else if (signerRut && signerRut !== caratula.rut_envia)
      found("SetDTE/Caratula/RutEnvia", `is ${caratula.rut_envia}, but the envelope was signed by ${signerRut}`);
  }
  return { kind, bytes, doc, encoding, caratula, firma, documentos, problems, hallazgos };
}

/** Indexes of the documents that share a type and folio, by `tipo:folio`, for each pair given more than once. */
function repeatedFolios(documentos: readonly DocumentSummary[]): Map<string, number[]> {
  const seen = new Map<string, number[]>();
  documentos.forEach((d, i) => {
    const key = `${d.tipo}:${d.folio}`;
    seen.set(key, [...(seen.get(key) ?? []), i]);
  });
  return new Map([...seen].filter(([, indexes]) => indexes.length > 1));
}

/** The envelope's own signature (the root's), which must cover its SetDTE. */
async function envelopeSignature(root: XmlElement, setDte: XmlElement, ids: IdIndex): Promise<SignatureCheck | null> {
  const signature = childElements(root).find((c) => localName(c.name) === "Signature");
  if (!signature) return null;
  const check = await checkSignature({ element: signature, ancestors: [root] }, ids, root);
  if (check.valido && check.cubre !== setDte)
    return { ...check, valido: false, motivo: `the signature covers ${check.referencia}, not the SetDTE` };
  return check;
}
