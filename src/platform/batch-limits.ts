// How much one request may ask of the document engine, and what it pays. A request takes an
// envelope up to the SII's maxima (src/dte/verify/envelope.ts MAX_DOCUMENTS): the engine's work
// (normalizing, stamping, signing, checking, drawing) runs on the thread that serves every other
// request of the process or isolate, so it is done in slices that yield (lib/yielder.ts), and it is
// charged by the block of documents, not by the request. A limit broken is a 400 naming the field.

import { MAX_DOCUMENTS } from "../dte/verify/envelope.ts";
import { fieldError } from "./body-field.ts";

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
/**
 * Documents per charged block: an operation on a batch costs its weight per started block. At 50,
 * the largest envelope cost `generar`, `pdf`, `escpos` and `formatos/json` 24–38 ms of CPU a unit,
 * two to three times a median unit (bench/README.md "CPU per quota unit"); at 25, half that, and a
 * request of one document pays the same.
 */
export const CHARGE_BLOCK = 25;
/**
 * Detalle lines an uploaded XML may carry per charged block. One document with its Detalle copied a
 * thousand times is work (parsed, canonicalized, digested, drawn) that a count of documents alone
 * charged as one block. 1 500 lines (a block's documents at the 30 lines a document the limits
 * allow on average) cost `formatos/json` and `escpos` 50–63 ms of CPU a unit, two and a half to
 * three times a median unit (bench/README.md "CPU per quota unit"); 1 000 bring them to about 1.5
 * to 2 times. A request at the line limit is then 60 blocks, at the document limit 80.
 */
export const CHARGE_BLOCK_LINES = 1_000;

/** Units for `documents` (with `lines` Detalle lines in all, when they count) at `weight` per started block. */
export const unitsFor = (weight: number, documents: number, lines = 0) =>
  weight * Math.max(1, Math.ceil(documents / CHARGE_BLOCK), Math.ceil(lines / CHARGE_BLOCK_LINES));

/** 400 when an uploaded envelope carries more documents than its kind of envelope may (the SII's maximum), naming both. */
export function checkDocumentCount(path: string, count: number, kind: "EnvioDTE" | "EnvioBOLETA" | "DTE" = "EnvioDTE"): void {
  const max = kind === "EnvioBOLETA" ? MAX_BATCH_BOLETAS : MAX_BATCH_DOCUMENTS;
  if (count > max) {
    throw fieldError(path, `holds ${count} documents; at most ${max} per ${kind === "DTE" ? "request" : kind} (the SII's maximum)`);
  }
}

/** 400 when one document has more Detalle lines than a document may, or all of them more than one request may carry; else their sum. */
export function checkLines(path: string, counts: readonly number[]): number {
  const over = counts.findIndex((n) => n > MAX_DOCUMENT_LINES);
  if (over >= 0) {
    throw fieldError(path, `document ${over + 1} has ${counts[over]} Detalle lines; a document has at most ${MAX_DOCUMENT_LINES}`);
  }
  const lines = counts.reduce((a, b) => a + b, 0);
  if (lines > MAX_BATCH_LINES) {
    throw fieldError(path, `has ${lines} Detalle lines in all; at most ${MAX_BATCH_LINES} per request (send the rest in further requests)`);
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
export function checkPrintedPages(documents: number, copies: number): void {
  const pages = documents * copies;
  if (pages > MAX_PRINTED_COPIES) {
    throw fieldError(
      "copias",
      `asks for ${pages} pages (documents × copies, the cedible one too); at most ${MAX_PRINTED_COPIES} per request`,
    );
  }
}
