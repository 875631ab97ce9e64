// What the documents and submissions operations share: uploaded XML in a JSON body (a DTE,
// EnvioDTE or EnvioBOLETA as base64), read the same way by every operation that takes one: refused
// with 400 naming the field when it is not base64, not readable XML, or not one of those documents.
import type { z } from "@hono/zod-openapi";
import {
  type EnvelopeContents,
  type EnvelopeReport,
  EnvelopeUnreadable,
  inspectEnvelope,
  readEnvelope,
} from "../../dte/verify/envelope.ts";
import { base64ToBytes } from "../../lib/encoding.ts";
import { ApiError } from "../../platform/errors.ts";
import type { ResolucionField } from "./schema.ts";

export function fieldError(path: string, message: string): ApiError {
  return new ApiError(400, "VALIDATION_ERROR", `${path} ${message}`, { errors: [{ path, location: "body", message }] });
}

export function base64Field(path: string, value: string): Uint8Array<ArrayBuffer> {
  try {
    return base64ToBytes(value.replace(/\s+/g, ""));
  } catch {
    throw fieldError(path, "is not base64");
  }
}

async function unreadableAs400<T>(read: () => T | Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof EnvelopeUnreadable) throw fieldError("xml", `cannot be read: ${err.message}`);
    throw err;
  }
}

/** The documents of the uploaded XML, unchecked (for rendering). */
export function readXmlField(value: string): Promise<EnvelopeContents> {
  return unreadableAs400(() => readEnvelope(base64Field("xml", value)));
}

/** The uploaded XML with every check made (signatures, carátula, limits). */
export function inspectXmlField(value: string): Promise<EnvelopeReport> {
  return unreadableAs400(() => inspectEnvelope(base64Field("xml", value)));
}

/** The resolution to print: the request's, or the envelope carátula's. */
export function resolucionOf(requested: z.output<typeof ResolucionField>, contents: Pick<EnvelopeContents, "caratula">) {
  const caratula = contents.caratula;
  return requested ?? (caratula?.fecha_resolucion ? { numero: caratula.numero_resolucion, fecha: caratula.fecha_resolucion } : null);
}
