// The success envelope every JSON answer uses, written here only: whole (`ok`), or around `data`
// given as pieces of its JSON text (`okStream`, `okInPieces`, `okHeld`).
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { yielder } from "../lib/yielder.ts";
import { gathered, jsonPieces } from "./json-pieces.ts";
import { type HeldText, heldBody, JSON_FORMAT } from "./stream.ts";

const now = () => new Date().toISOString();

/** The success envelope's text around `data`'s pieces; `timestamp` is read as the envelope closes. */
async function* envelopePieces(data: AsyncIterable<string>, message: string, timestamp: () => string = now): AsyncGenerator<string> {
  yield `{"success":true,"message":${JSON.stringify(message)},"data":`;
  yield* data;
  yield `,"timestamp":${JSON.stringify(timestamp())}}`;
}

/**
 * The same success envelope with `data` given as pieces of its JSON text, streamed out as they
 * come: a large answer (2 000 signed documents and their envelope are ~30 MB of JSON) is never
 * serialized in one go, which would hold the thread for hundreds of milliseconds. The producer
 * pauses between pieces; it must not fail once it has begun (the status is already sent).
 */
export function okStream(c: Context, data: AsyncIterable<string>, message = "OK"): Response {
  const encoder = new TextEncoder();
  const timestamp = now();
  const pieces = envelopePieces(data, message, () => timestamp);
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await pieces.return(undefined);
    },
  });
  return c.body(stream, 200, { "content-type": "application/json" });
}

export function ok<T, S extends ContentfulStatusCode = 200>(c: Context, data: T, message = "OK", status?: S) {
  return c.json({ success: true as const, message, data, timestamp: now() }, (status ?? 200) as S);
}

/**
 * `ok(c, data)`'s answer, byte for byte, serialized a piece at a time in slices of at most 5 ms
 * (`json-pieces.ts`): for the answers of the reading operations at the SII's maxima.
 */
export function okInPieces(c: Context, data: unknown, message = "OK"): Response {
  return okStream(c, gathered(jsonPieces(data, yielder(5, 64))), message);
}

/**
 * The success envelope around `data`'s JSON text as a service held it (stream.ts `holdText`):
 * whole when it ended within the hold, streamed on if not (a failure then aborts the answer).
 */
export function okHeld(c: Context, data: HeldText, message = "OK"): Promise<Response> {
  return heldBody(c, { ...data, pieces: envelopePieces(data.pieces, message) }, JSON_FORMAT);
}
