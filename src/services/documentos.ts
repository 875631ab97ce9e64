// The documents' renderings and normal form, with no HTTP: an uploaded DTE or envelope (already
// read, limited and charged by the route) drawn as a PDF or as ESC/POS receipts with the resolution
// it was issued under, and a document (JSON, or each DTE of an upload) normalized. Each document is
// one slice of the batch's time budget: an envelope may hold 2 000.
import { dteDocumentFromXml } from "../dte/normalize/from-xml.ts";
import { type Node, normalizeDte, SUPPORTED_TYPES } from "../dte/normalize/normalize.ts";
import { type CodePage, escposReceipt, type Paper } from "../dte/render/escpos.ts";
import { ImageRefused, readImage } from "../dte/render/image.ts";
import { type PrintedDocument, printedDocument } from "../dte/render/model.ts";
import { type PdfPaper, pdfDocument } from "../dte/render/pdf.ts";
import type { EnvelopeContents } from "../dte/verify/envelope.ts";
import { santiagoDate } from "../lib/dates.ts";
import { concatBytes } from "../lib/encoding.ts";
import { batchYielder } from "../lib/yielder.ts";
import { base64Field, fieldError } from "../platform/body-field.ts";
import type { Caller } from "../platform/caller.ts";

/** The SII resolution printed under the stamp. */
export interface Resolucion {
  numero: number;
  fecha: string;
}

/** The resolution to print: the request's, or the envelope carátula's. */
export function resolucionOf(requested: Resolucion | undefined, contents: Pick<EnvelopeContents, "caratula">): Resolucion | null {
  const caratula = contents.caratula;
  return requested ?? (caratula?.fecha_resolucion ? { numero: caratula.numero_resolucion, fecha: caratula.fecha_resolucion } : null);
}

/** Each document of the upload as printed, `each` drawing it as it comes, a slice of the time budget apiece. */
async function printedDocuments(contents: EnvelopeContents, each?: (doc: PrintedDocument) => void): Promise<PrintedDocument[]> {
  const docs = [];
  const pause = batchYielder();
  for (const { documento } of contents.dtes) {
    const doc = printedDocument(contents.doc, documento);
    each?.(doc);
    docs.push(doc);
    await pause();
  }
  return docs;
}

const listed = (docs: PrintedDocument[]) => docs.map((d) => ({ tipo: d.tipo, folio: d.folio }));

/**
 * The printed file's name: `DTE-33-101` for one document (type and folio), `EnvioDTE-<RUT>-<n>docs`
 * for an envelope of several (its issuer, as the carátula or its first document says, and how many).
 */
function printedName(contents: EnvelopeContents, docs: PrintedDocument[], extension: string): string {
  const [first] = docs;
  if (first && docs.length === 1) return `DTE-${first.tipo}-${first.folio}.${extension}`;
  const issuer = contents.caratula?.rut_emisor || first?.emisor.rut || "";
  return `${contents.kind}-${issuer}-${docs.length}docs.${extension}`;
}

/** The logo as the PDF draws it: a JPEG or PNG, base64; else 400 naming `logo`. */
function logoOf(base64: string) {
  try {
    return readImage(base64Field("logo", base64));
  } catch (err) {
    if (err instanceof ImageRefused) throw fieldError("logo", err.message);
    throw err;
  }
}

export interface PdfInput {
  papel: PdfPaper;
  cedible: boolean;
  copias: number;
  /** A JPEG or PNG, base64. */
  logo?: string;
  oficina_sii?: string;
  resolucion?: Resolucion;
}

/**
 * The SII office printed under the red box (`S.I.I. - <office>`, docs/dte-engine.md §12.5): the
 * request's; the gateway stores no taxpayer data that holds it (the CAF has none), so without it,
 * 400 naming `oficina_sii` rather than an incomplete stamp block.
 */
export function oficinaOf(requested: string | undefined): string {
  const oficina = requested?.trim();
  if (!oficina) {
    throw fieldError(
      "oficina_sii",
      "is required: the printout shows the issuer's SII office under the red box (S.I.I. - <office>), and the gateway holds no taxpayer data that says it",
    );
  }
  return oficina;
}

/** One PDF of every document of the upload, each in `copias` copies (and the cedible one when asked). */
export async function renderPdf(contents: EnvelopeContents, input: PdfInput) {
  const oficina_sii = oficinaOf(input.oficina_sii);
  const logo = input.logo ? logoOf(input.logo) : null;
  const resolucion = resolucionOf(input.resolucion, contents);
  const docs = await printedDocuments(contents);
  const pdf = await pdfDocument(docs, {
    papel: input.papel,
    cedible: input.cedible,
    copias: input.copias,
    resolucion,
    oficina_sii,
    logo,
  });
  return { pdf, documentos: listed(docs), name: printedName(contents, docs, "pdf") };
}

export interface EscposInput {
  papel: Paper;
  codepage: CodePage;
  resolucion?: Resolucion;
}

/** One ESC/POS receipt per document of the upload, each cut, as one run of bytes. */
export async function renderEscpos(contents: EnvelopeContents, input: EscposInput) {
  const resolucion = resolucionOf(input.resolucion, contents);
  const receipts: Uint8Array[] = [];
  const docs = await printedDocuments(contents, (doc) => {
    receipts.push(escposReceipt(doc, { papel: input.papel, codepage: input.codepage, resolucion }));
  });
  return { escpos: concatBytes(receipts), documentos: listed(docs), name: printedName(contents, docs, "prn") };
}

/** The document's type, or 400 naming `<at>.Encabezado.IdDoc.TipoDTE` when it is not one the engine normalizes. */
function supportedType(document: Node, at: string): number {
  const idDoc = ((document.Encabezado as Node | undefined)?.IdDoc ?? {}) as Node;
  const tipo = Number(idDoc.TipoDTE);
  if (!SUPPORTED_TYPES.includes(tipo)) {
    throw fieldError(
      `${at}.Encabezado.IdDoc.TipoDTE`,
      `document type ${tipo} is not one this gateway normalizes (one of ${SUPPORTED_TYPES.join(", ")})`,
    );
  }
  return tipo;
}

const todayOf = (caller: Pick<Caller, "deps">) => santiagoDate(caller.deps.clock.now());

/** A document given as JSON, normalized as of the caller's day in Chile, with what was filled in or changed. */
export function normalizeDocument(caller: Pick<Caller, "deps">, dte: Node) {
  supportedType(dte, "dte");
  return normalizeDte(dte, todayOf(caller));
}

/** Each DTE of the upload, normalized (its stamp and signatures dropped); error paths name it `xml.documentos[i]`. */
export async function normalizeUpload(caller: Pick<Caller, "deps">, contents: EnvelopeContents) {
  const today = todayOf(caller);
  const documentos = [];
  const pause = batchYielder();
  for (const [i, entry] of contents.dtes.entries()) {
    const at = `xml.documentos[${i}]`;
    const document = dteDocumentFromXml(entry);
    const tipo = supportedType(document, at);
    const { dte, warnings } = normalizeDte(document, today, { at });
    const folio = Number(((dte.Encabezado as Node).IdDoc as Node).Folio);
    documentos.push({ tipo, folio: Number.isInteger(folio) ? folio : null, dte, warnings });
    await pause();
  }
  return { sobre: contents.kind, documentos };
}
