// What the documents and submissions operations share: uploaded XML in a JSON body (a DTE,
// EnvioDTE or EnvioBOLETA as base64), read the same way by every operation that takes one: refused
// with 400 naming the field when it is not base64, not readable XML, or not one of those documents.
import type { z } from "@hono/zod-openapi";
import {
  type EnvelopeContents,
  type EnvelopeReport,
  EnvelopeUnreadable,
  inspectEnvelope,
  readEnvelopeAsync,
} from "../../dte/verify/envelope.ts";
import { base64ToBytes, base64ToBytesAsync } from "../../lib/encoding.ts";
import { nextTurn } from "../../lib/yielder.ts";
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

/** The uploaded XML's bytes, decoded a piece at a time (an envelope of 2 000 documents is ~12 MB of base64). */
async function uploadedBytes(path: string, value: string): Promise<Uint8Array<ArrayBuffer>> {
  try {
    return await base64ToBytesAsync(value.replace(/\s+/g, ""), nextTurn);
  } catch {
    throw fieldError(path, "is not base64");
  }
}

/** The documents of the uploaded XML, unchecked (for rendering), read in slices that yield. */
export async function readXmlField(value: string): Promise<EnvelopeContents> {
  const bytes = await uploadedBytes("xml", value);
  return unreadableAs400(() => readEnvelopeAsync(bytes));
}

/** The uploaded XML (or its contents, already read) with every check made (signatures, carátula, limits). */
export async function inspectXmlField(value: string | EnvelopeContents): Promise<EnvelopeReport> {
  const upload = typeof value === "string" ? await uploadedBytes("xml", value) : value;
  return unreadableAs400(() => inspectEnvelope(upload));
}

/** The resolution to print: the request's, or the envelope carátula's. */
export function resolucionOf(requested: z.output<typeof ResolucionField>, contents: Pick<EnvelopeContents, "caratula">) {
  const caratula = contents.caratula;
  return requested ?? (caratula?.fecha_resolucion ? { numero: caratula.numero_resolucion, fecha: caratula.fecha_resolucion } : null);
}
