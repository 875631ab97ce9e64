// How much one request may ask of the document engine. An operation is charged per request, and
// the engine's work (normalizing, stamping, signing, checking, drawing) runs on the thread that
// serves every other request of the process or isolate: each limit keeps the largest request's
// longest hold of it in the low hundreds of milliseconds (measured figures in the README), and a
// bigger batch is sent as several requests.
import { childElements, localName, type XmlElement } from "../../dte/xml/parse.ts";
import { ApiError } from "../../platform/errors.ts";

/** Documents per request (generar, pdf, escpos, envios/verificar, formatos/json from XML). */
export const MAX_BATCH_DOCUMENTS = 20;
/** Detalle lines of one document: the boleta schema's maximum (EnvioBOLETA_v11.xsd; other types allow 60). */
export const MAX_DOCUMENT_LINES = 1000;
/** Detalle lines of all the documents of one request. */
export const MAX_BATCH_LINES = 1200;
/** Pages of one PDF or ESC/POS answer: documents × copies (the cedible copy counts). */
export const MAX_PRINTED_COPIES = 20;

export function tooLarge(path: string, message: string): ApiError {
  return new ApiError(400, "VALIDATION_ERROR", `${path} ${message}`, { errors: [{ path, location: "body", message }] });
}

/** 400 when an uploaded envelope carries more documents than one request may. */
export function checkDocumentCount(path: string, count: number): void {
  if (count > MAX_BATCH_DOCUMENTS) {
    throw tooLarge(path, `holds ${count} documents; at most ${MAX_BATCH_DOCUMENTS} per request (send the rest in further requests)`);
  }
}

/** 400 when one document has more Detalle lines than a document may, or all of them more than one request may carry. */
function checkLines(path: string, counts: readonly number[]): void {
  const over = counts.findIndex((n) => n > MAX_DOCUMENT_LINES);
  if (over >= 0) {
    throw tooLarge(path, `document ${over + 1} has ${counts[over]} Detalle lines; a document has at most ${MAX_DOCUMENT_LINES}`);
  }
  const lines = counts.reduce((a, b) => a + b, 0);
  if (lines > MAX_BATCH_LINES) {
    throw tooLarge(path, `has ${lines} Detalle lines in all; at most ${MAX_BATCH_LINES} per request (send the rest in further requests)`);
  }
}

/** The same limits for documents given as JSON (`Detalle` one object or a list). */
export function checkLineCount(path: string, documents: readonly unknown[]): void {
  checkLines(
    path,
    documents.map((document) => {
      const detalle = typeof document === "object" && document !== null ? (document as Record<string, unknown>).Detalle : undefined;
      return Array.isArray(detalle) ? detalle.length : detalle === undefined ? 0 : 1;
    }),
  );
}

/** The same limits for uploaded XML: every Detalle line is drawn, none dropped, so the whole upload must fit. */
export function checkXmlLineCount(path: string, dtes: readonly { documento: XmlElement }[]): void {
  checkLines(
    path,
    dtes.map(({ documento }) => childElements(documento).filter((c) => localName(c.name) === "Detalle").length),
  );
}

/**
 * Lets other requests run between documents: a macrotask (setTimeout works on every runtime), taken
 * once 20 ms of work have passed or every 10 documents (Workers' clock stands still while code runs).
 */
export function yielder(): () => Promise<void> {
  let since = Date.now();
  let count = 0;
  return async () => {
    if (++count < 10 && Date.now() - since < 20) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    since = Date.now();
    count = 0;
  };
}
