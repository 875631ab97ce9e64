// What the documents and submissions operations share: uploaded XML in a JSON body (a DTE,
// EnvioDTE or EnvioBOLETA as base64), read the same way by every operation that takes one: refused
// with 400 naming the field when it is not base64, not readable XML, or not one of those documents.
import { z } from "@hono/zod-openapi";
import {
  type AdmitUpload,
  type EnvelopeContents,
  type EnvelopeReport,
  EnvelopeUnreadable,
  inspectEnvelope,
  readEnvelopeAsync,
} from "../dte/verify/envelope.ts";
import { base64ToBytesAsync } from "../lib/encoding.ts";
import { nextTurn } from "../lib/yielder.ts";
import { fieldError } from "../platform/body-field.ts";
import { MAX_CHARS } from "../platform/params.ts";
import { EXAMPLE_ENVELOPE } from "./example-documents.ts";

async function unreadableAs400<T>(read: () => T | Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof EnvelopeUnreadable) throw fieldError("xml", `cannot be read: ${err.message}`);
    throw err;
  }
}

/** The uploaded XML's bytes, its whitespace dropped and decoded a piece at a time (an envelope of 2 000 documents is ~12 MB of base64). */
async function uploadedBytes(path: string, value: string): Promise<Uint8Array<ArrayBuffer>> {
  try {
    return await base64ToBytesAsync(value, nextTurn);
  } catch {
    throw fieldError(path, "is not base64");
  }
}

/** The documents of the uploaded XML, unchecked (for rendering), read in slices that yield; `admit` as readEnvelopeAsync's. */
export async function readXmlField(value: string, admit?: AdmitUpload): Promise<EnvelopeContents> {
  const bytes = await uploadedBytes("xml", value);
  return unreadableAs400(() => readEnvelopeAsync(bytes, undefined, admit));
}

/** The uploaded XML (or its contents, already read) with every check made (signatures, carátula, limits). */
export async function inspectXmlField(value: string | EnvelopeContents): Promise<EnvelopeReport> {
  const upload = typeof value === "string" ? await uploadedBytes("xml", value) : value;
  return unreadableAs400(() => inspectEnvelope(upload));
}

/**
 * Base64 text as the server reads it (src/lib/encoding.ts: whitespace dropped, then the forgiving
 * decoder of atob): the alphabet, padding at the end. Text outside it is a 400 naming the field.
 */
export const BASE64_PATTERN = "^[A-Za-z0-9+/\\s]*={0,2}\\s*$";

/**
 * Base64 content (line breaks may be kept). No `contentMediaType` beside it: @hey-api/openapi-ts
 * reads a file-like media type (application/xml) as a file (`Blob | File`) even in a JSON body, so
 * what the bytes are is said in each field's description.
 */
export const BASE64 = { contentEncoding: "base64", pattern: BASE64_PATTERN } as const;

export const XmlField = z
  .string()
  .min(1, { error: "is required" })
  .max(MAX_CHARS.xml)
  .register(z.globalRegistry, {
    ...BASE64,
    description: "A DTE, EnvioDTE or EnvioBOLETA XML, base64 of its bytes",
    example: EXAMPLE_ENVELOPE,
  });
