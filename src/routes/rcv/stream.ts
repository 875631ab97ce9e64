// Answers that stream: a period's documents pass from the SII to the client a piece at a time.
//
// A failure after the first byte was sent cannot become an error envelope any more (the status
// and the start of the body are gone): the response is aborted, so its JSON never closes and no
// client can take a cut answer for a whole one. Both streamed details (async and sync) do this.

import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../platform/context.ts";
import type { CookieJar } from "../../sii/cookies.ts";
import type { SiiContext } from "../../sii/http.ts";
import { type RcvAuthBody, withRcvSession } from "./shared.ts";

const JSON_TYPE = { "content-type": "application/json; charset=utf-8" };
/** Pieces joined into one chunk: one write per row would cost more than the row. */
const PIECES_PER_CHUNK = 200;

/** JSON text pieces as a byte stream; `ended` runs once it is finished, failed or cancelled. */
export function jsonStream(pieces: AsyncIterator<string>, ended: () => void = () => {}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const batch: string[] = [];
      try {
        while (batch.length < PIECES_PER_CHUNK) {
          const next = await pieces.next();
          if (next.done) {
            if (batch.length) controller.enqueue(encoder.encode(batch.join("")));
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
      controller.enqueue(encoder.encode(batch.join("")));
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
 * Answers with the JSON `pieces(jar)` writes, made in the taxpayer's SII session. Up to
 * COMMIT_CHARS of it is held before anything is sent, so any failure until then is an ordinary
 * error envelope (and a session wall logs in again and starts over). A larger answer then streams,
 * and the session stays held until its body is finished: the SII calls it still makes (more
 * document types, a second read) stay serialized with this taxpayer's other calls.
 */
export function answerInSession(
  c: Context<AppEnv>,
  ctx: SiiContext,
  rut: string,
  auth: z.output<typeof RcvAuthBody>["auth"],
  pieces: (jar: CookieJar) => AsyncGenerator<string>,
): Promise<Response> {
  return new Promise<Response>((answer, fail) => {
    withRcvSession(c, ctx, rut, auth, async (jar) => {
      const source = pieces(jar);
      const held: string[] = [];
      let size = 0;
      while (size <= COMMIT_CHARS) {
        const next = await source.next();
        if (next.done) {
          answer(c.body(held.join(""), 200, JSON_TYPE));
          return;
        }
        held.push(next.value);
        size += next.value.length;
      }
      const finished = new Promise<void>((ended) => {
        answer(c.body(jsonStream(resume(held, source), ended), 200, JSON_TYPE));
      });
      await finished;
    }).catch(fail);
  });
}

/** The held pieces, then the rest of the source. */
async function* resume(held: string[], source: AsyncGenerator<string>): AsyncGenerator<string> {
  yield* held;
  yield* source;
}

/** Streams `pieces` as the JSON answer (already inside whatever session it needs). */
export function streamJson(c: Context<AppEnv>, pieces: AsyncIterator<string>): Response {
  return c.body(jsonStream(pieces), 200, JSON_TYPE);
}
