// Answers that stream: text passes to the client a piece at a time (a period's documents, as the
// SII sends them).
//
// A failure after the first byte was sent cannot become an error envelope any more (the status
// and the start of the body are gone): the response is aborted, so its JSON never closes and no
// client can take a cut answer for a whole one. So the first COMMIT_CHARS of an answer are held
// (`holdText`, run by the service where a failure can still be retried or answered as an error),
// and only then written out (`heldBody`).
import type { Context } from "hono";

/** Pieces joined into one chunk: one write per row would cost more than the row. */
const PIECES_PER_CHUNK = 200;

/** How a streamed answer is typed and its text turned into bytes. */
export interface StreamFormat {
  headers: Record<string, string>;
  encode: (text: string) => Uint8Array;
}

const utf8 = new TextEncoder();
export const JSON_FORMAT: StreamFormat = {
  headers: { "content-type": "application/json; charset=utf-8" },
  encode: (text) => utf8.encode(text),
};

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
 * Text whose first COMMIT_CHARS were read already: `whole` when it ended by then. `ended` runs
 * once it is complete (at once for a whole one), or failed or cancelled while it streams.
 */
export interface HeldText {
  pieces: AsyncIterable<string>;
  whole: boolean;
  ended: () => void;
}

/**
 * Reads `source` up to COMMIT_CHARS, so any failure until then is thrown here (an ordinary error
 * envelope, or a retry by whoever holds the SII session). No HTTP: services hold their answers.
 */
export async function holdText(source: AsyncGenerator<string>, ended: () => void = () => {}): Promise<HeldText> {
  const held: string[] = [];
  let size = 0;
  while (size <= COMMIT_CHARS) {
    const next = await source.next();
    if (next.done) {
      ended();
      return { pieces: resume(held), whole: true, ended };
    }
    held.push(next.value);
    size += next.value.length;
  }
  return { pieces: resume(held, source), whole: false, ended };
}

/** The held pieces, then the rest of the source. */
async function* resume(held: string[], source?: AsyncGenerator<string>): AsyncGenerator<string> {
  yield* held;
  if (source) yield* source;
}

/** Answers held text: whole if it ended within the hold, streamed from the held part on if not. */
export async function heldBody(c: Context, text: HeldText, format: StreamFormat): Promise<Response> {
  const pieces = text.pieces[Symbol.asyncIterator]();
  if (!text.whole) return c.body(textStream(pieces, format, text.ended), 200, format.headers);
  const all: string[] = [];
  for (let next = await pieces.next(); !next.done; next = await pieces.next()) all.push(next.value);
  return c.body(format.encode(all.join("")) as Uint8Array<ArrayBuffer>, 200, format.headers);
}
