// How much one request may ask of the document engine, and what it pays. A request takes an
// envelope up to the SII's maxima (src/dte/verify/envelope.ts MAX_DOCUMENTS): the engine's work
// (normalizing, stamping, signing, checking, drawing) runs on the thread that serves every other
// request of the process or isolate, so it is done in slices that yield (`yielder`), and it is
// charged by the block of documents, not by the request.
import type { Context } from "hono";
import { type EnvelopeContents, MAX_DOCUMENTS } from "../dte/verify/envelope.ts";
import { batchYielder, yielder } from "../lib/yielder.ts";
import { fieldError } from "../platform/body-field.ts";
import { chargeUnits } from "../platform/charge.ts";
import type { AppEnv } from "../platform/context.ts";
import { ApiError } from "../platform/errors.ts";
import { readXmlField } from "./uploaded-xml.ts";

/** Lets other requests run between documents (see lib/yielder.ts). */
export { batchYielder, yielder };

/** Documents per request (generar, pdf, escpos, envios/verificar, formatos/json from XML): the largest envelope, an EnvioDTE's. */
export const MAX_BATCH_DOCUMENTS = MAX_DOCUMENTS.EnvioDTE;
/** Documents per request when they are boletas: an EnvioBOLETA's maximum. */
export const MAX_BATCH_BOLETAS = MAX_DOCUMENTS.EnvioBOLETA;
/** Detalle lines of one document: the boleta schema's maximum (EnvioBOLETA_v11.xsd; other types allow 60). */
export const MAX_DOCUMENT_LINES = 1000;
/**
 * Detalle lines of all the documents of one request: 30 a document on average at the largest
 * envelope. The body limit (MAX_BODY_BYTES, 32 MiB) alone would let ~740 000 minimal lines
 * through (`{"NmbItem":"x","QtyItem":1,"PrcItem":1}` is 45 bytes), and each line costs work in
 * every operation (normalized, serialized, digested, drawn), so the count bounds it: a request at
 * this limit stays seconds of CPU, inside Workers' 30 s with room. 2 000 typical boletas (one to
 * five lines, about 1 KB of JSON each) are ~2 MB, well inside the body limit.
 */
export const MAX_BATCH_LINES = 60_000;
/** Pages of one PDF answer: documents × copies (the cedible copy counts): one of each document of the largest envelope. */
export const MAX_PRINTED_COPIES = MAX_BATCH_DOCUMENTS;
/** Documents per charged block: an operation on a batch costs its weight per started block. */
export const CHARGE_BLOCK = 50;
/**
 * Detalle lines an uploaded XML may carry per charged block: a block's documents at the 30 lines a
 * document the request's limits allow on average, so a request at either limit is the same 40
 * blocks. One document with its Detalle copied a thousand times is work (parsed, canonicalized,
 * digested, drawn) that a count of documents alone charged as one block.
 */
export const CHARGE_BLOCK_LINES = (CHARGE_BLOCK * MAX_BATCH_LINES) / MAX_BATCH_DOCUMENTS;

/** The charging rule, as each operation's description states it; `lines`: an uploaded XML's lines count too (the reading fee: src/platform/json-body.ts). */
export const chargeRule = (weight: number, lines = false) =>
  `Charged ${weight} unit${weight === 1 ? "" : "s"} (the operation's weight) per started block of ${CHARGE_BLOCK} documents${lines ? ` or of ${CHARGE_BLOCK_LINES} Detalle lines, whichever makes more blocks` : ""}: 1–${CHARGE_BLOCK} documents ${weight}, ${CHARGE_BLOCK + 1}–${2 * CHARGE_BLOCK} ${2 * weight}, ${MAX_BATCH_DOCUMENTS} documents ${(weight * MAX_BATCH_DOCUMENTS) / CHARGE_BLOCK}${lines ? `, one document of 1 000 lines ${weight}, ${MAX_BATCH_LINES} lines ${(weight * MAX_BATCH_LINES) / CHARGE_BLOCK_LINES}` : ""}. A body over 1 MiB that is refused (4xx) costs one unit per started MiB beyond the first (an 18 MB upload: 17), said in \`details.unidades_cobradas\`; those units must be left before it is read (else 429 \`QUOTA_EXCEEDED\`, the body unread).`;

/** Units for `documents` (with `lines` Detalle lines in all, when they count) at `weight` per started block. */
export const unitsFor = (weight: number, documents: number, lines = 0) =>
  weight * Math.max(1, Math.ceil(documents / CHARGE_BLOCK), Math.ceil(lines / CHARGE_BLOCK_LINES));

/** Charges the blocks beyond the first (the operation's weight, already paid): call it before the work. */
export async function chargeDocuments(c: Context<AppEnv>, weight: number, documents: number, lines = 0): Promise<void> {
  await chargeUnits(c, unitsFor(weight, documents, lines) - weight);
}

export function tooLarge(path: string, message: string): ApiError {
  return new ApiError(400, "VALIDATION_ERROR", `${path} ${message}`, { errors: [{ path, location: "body", message }] });
}

/** 400 when an uploaded envelope carries more documents than its kind of envelope may (the SII's maximum), naming both. */
export function checkDocumentCount(path: string, count: number, kind: "EnvioDTE" | "EnvioBOLETA" | "DTE" = "EnvioDTE"): void {
  const max = kind === "EnvioBOLETA" ? MAX_BATCH_BOLETAS : MAX_BATCH_DOCUMENTS;
  if (count > max) {
    throw tooLarge(path, `holds ${count} documents; at most ${max} per ${kind === "DTE" ? "request" : kind} (the SII's maximum)`);
  }
}

/** 400 when one document has more Detalle lines than a document may, or all of them more than one request may carry; else their sum. */
function checkLines(path: string, counts: readonly number[]): number {
  const over = counts.findIndex((n) => n > MAX_DOCUMENT_LINES);
  if (over >= 0) {
    throw tooLarge(path, `document ${over + 1} has ${counts[over]} Detalle lines; a document has at most ${MAX_DOCUMENT_LINES}`);
  }
  const lines = counts.reduce((a, b) => a + b, 0);
  if (lines > MAX_BATCH_LINES) {
    throw tooLarge(path, `has ${lines} Detalle lines in all; at most ${MAX_BATCH_LINES} per request (send the rest in further requests)`);
  }
  return lines;
}

/** The same limits for documents given as JSON (`Detalle` one object or a list); answers their lines in all. */
export function checkLineCount(path: string, documents: readonly unknown[]): number {
  return checkLines(
    path,
    documents.map((document) => {
      const detalle = typeof document === "object" && document !== null ? (document as Record<string, unknown>).Detalle : undefined;
      return Array.isArray(detalle) ? detalle.length : detalle === undefined ? 0 : 1;
    }),
  );
}

/** 400 naming `copias` when `documents` printed `copies` times each are more pages than one PDF may have. */
function checkPrintedPages(documents: number, copies: number): void {
  const pages = documents * copies;
  if (pages > MAX_PRINTED_COPIES) {
    throw tooLarge(
      "copias",
      `asks for ${pages} pages (documents × copies, the cedible one too); at most ${MAX_PRINTED_COPIES} per request`,
    );
  }
}

/**
 * The documents of an uploaded `xml` field (`charged` false: the limits only, as for a free preview), refused when it holds none, or more documents or
 * Detalle lines than one request may, and charged `weight` per started block of its documents or lines:
 * those are counted by the screen that reads the XML before it is parsed (every Detalle line is
 * drawn or checked, none dropped, so the whole upload must fit), so an upload over a limit, or one
 * the caller's quota cannot pay for, costs no parse, canonicalization or signature check.
 * `copies`: each document is drawn that many times (pdf's pages), so its documents and lines count
 * that many times, and more pages than MAX_PRINTED_COPIES are refused first.
 */
export async function readUploadedBatch(
  c: Context<AppEnv>,
  weight: number,
  xml: string,
  charged = true,
  copies = 1,
): Promise<EnvelopeContents> {
  const contents = await readXmlField(xml, async (kind, detalle) => {
    checkDocumentCount("xml", detalle.length, kind);
    const lines = checkLines("xml", detalle);
    checkPrintedPages(detalle.length, copies);
    if (charged) await chargeDocuments(c, weight, detalle.length * copies, lines * copies);
  });
  if (!contents.dtes.length) throw fieldError("xml", "holds no documents");
  return contents;
}
