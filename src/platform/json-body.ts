// A large JSON body is read and parsed in slices that yield before the operation's validator reads
// it. Hono's `c.req.json()` is one `JSON.parse` of the decoded text: for an upload of 2 000
// documents (~12 MB of base64 in one string) joining, decoding and parsing held the thread 20–90 ms.
// The body's bytes are read (and kept where Hono keeps a body read, so any later reader gets them)
// and parsed by `parseJsonBytesAsync`; the validator then takes that value. Small bodies, and bodies the sliced reading refuses, take Hono's
// own path unchanged (so a malformed body gets the validator's usual answer).
import type { MiddlewareHandler } from "hono";
import { parseJsonBytesAsync } from "../lib/json-async.ts";
import { type Pause, yielder } from "../lib/yielder.ts";

/** Bodies larger than this (bytes, as declared) are parsed in slices. */
export const SLICED_JSON_BODY = 1024 * 1024;

/** The media types Hono's validator reads as JSON. */
const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;

export const slicedJsonBody: MiddlewareHandler = async (c, next) => {
  const length = Number.parseInt(c.req.header("content-length") ?? "", 10);
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim() ?? "";
  if (!(length > SLICED_JSON_BODY) || !JSON_TYPE.test(type) || !c.req.raw.body) return next();
  const pause = yielder(5, 8);
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = await bodyBytes(c.req.raw.body, pause);
  } catch {
    // The client went away mid-body: the validator's own reading answers it, as before.
    return next();
  }
  // Kept where Hono looks for a body already read, so every later reader gets these bytes.
  Object.assign(c.req.bodyCache, { arrayBuffer: Promise.resolve(bytes.buffer) });
  let parsed: unknown;
  try {
    parsed = await parseJsonBytesAsync(bytes, pause);
  } catch {
    return next();
  }
  // Every reader of this request's JSON (the validator) gets the value read in slices.
  Object.defineProperty(c.req, "json", { value: () => Promise.resolve(parsed), configurable: true });
  return next();
};

/**
 * The body's bytes, joined a chunk at a time (reading it whole joined ~12 MB in one step). Memory
 * grows with what arrived, never with what was declared: a client declaring 32 MiB and sending
 * slowly holds no more than it sent.
 */
async function bodyBytes(body: ReadableStream<Uint8Array>, pause: Pause): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks.push(read.value);
    size += read.value.length;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
    await pause();
  }
  return out;
}
