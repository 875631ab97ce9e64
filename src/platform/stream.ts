// Answers that stream: a period's documents pass from the SII to the client a piece at a time.
//
// A failure after the first byte was sent cannot become an error envelope any more (the status
// and the start of the body are gone): the response is aborted, so its JSON never closes and no
// client can take a cut answer for a whole one. Both streamed details (async and sync) do this,
// and both hold the first COMMIT_CHARS of the answer so that an early failure is an error envelope.

import type { Context } from "hono";
import type { AppEnv } from "./context.ts";

const JSON_TYPE = { "content-type": "application/json; charset=utf-8" };
/** Pieces joined into one chunk: one write per row would cost more than the row. */
const PIECES_PER_CHUNK = 200;

/** How a streamed answer is typed and its text turned into bytes. */
export interface StreamFormat {
  headers: Record<string, string>;
  encode: (text: string) => Uint8Array;
}

const utf8 = new TextEncoder();
export const JSON_FORMAT: StreamFormat = { headers: JSON_TYPE, encode: (text) => utf8.encode(text) };

/** Text pieces as a byte stream; `ended` runs once it is finished, failed or cancelled. */
export function textStream(pieces: AsyncIterator<string>, format: StreamFormat, ended: () => void = () => {}): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const batch: string[] = [];
      try {
        while (batch.length < PIECES_PER_CHUNK) {
          const next = await pieces.next();
          if (next.done) {
            if (batch.length) controller.enqueue(format.encode(batch.join("")));
            controller.close();
            ended();
            return;
          }
          batch.push(next.value);
        }
      } catch (err) {
        controller.error(err);
        ended();
        return;
      }
      controller.enqueue(format.encode(batch.join("")));
    },
    async cancel() {
      ended();
      await pieces.return?.();
    },
  });
}

/** The whole answer is held up to this size before the first byte is sent. */
export const COMMIT_CHARS = 512 * 1024;

/**
 * The answer `source` writes: held up to COMMIT_CHARS, so any failure until then is an ordinary
 * error envelope; whole if it ends by then, streamed from the held part on if not. `ended` runs
 * once the answer is complete (at once for a whole one).
 */
export async function heldAnswer(
  c: Context<AppEnv>,
  source: AsyncGenerator<string>,
  format: StreamFormat,
  ended: () => void = () => {},
): Promise<Response> {
  const held: string[] = [];
  let size = 0;
  while (size <= COMMIT_CHARS) {
    const next = await source.next();
    if (next.done) {
      ended();
      return c.body(format.encode(held.join("")) as Uint8Array<ArrayBuffer>, 200, format.headers);
    }
    held.push(next.value);
    size += next.value.length;
  }
  return c.body(textStream(resume(held, source), format, ended), 200, format.headers);
}

/** The held pieces, then the rest of the source. */
async function* resume(held: string[], source: AsyncGenerator<string>): AsyncGenerator<string> {
  yield* held;
  yield* source;
}

/** Streams `pieces` as the JSON answer, already inside whatever session it needs, held as `heldAnswer` does. */
export function streamJson(c: Context<AppEnv>, pieces: AsyncGenerator<string>): Promise<Response> {
  return heldAnswer(c, pieces, JSON_FORMAT);
}
