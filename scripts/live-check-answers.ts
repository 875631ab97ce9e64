// live-check's copy of every SII answer (its first REDACT_MAX_CHARS bytes), so the one an
// operation could not read, or read implausibly, can be saved for a bug report and replayed.
import type { SiiTransport } from "../src/ports/transport.ts";
import { REDACT_MAX_CHARS } from "../src/sii/redact.ts";

export interface SiiAnswerCopy {
  method: string;
  url: string;
  status: number;
  contentType: string;
  /** The first bytes of the body, as they came. */
  bytes: Uint8Array;
  /** Whether the body was cut to its first REDACT_MAX_CHARS bytes. */
  cut: boolean;
}

async function firstBytes(stream: ReadableStream<Uint8Array>, max: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.length;
    }
    cut = size > max || (size === max && !(await reader.read()).done);
  } catch {
    // The client's side decides what a broken answer means; the copy keeps what arrived.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const out = new Uint8Array(Math.min(size, max));
  let at = 0;
  for (const part of parts) {
    const take = part.subarray(0, out.length - at);
    out.set(take, at);
    at += take.length;
  }
  return { bytes: out, cut };
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/** `inner`, with a copy of each answer with a body pushed to `answers` once `pending` settle. */
export function copying(inner: SiiTransport, answers: SiiAnswerCopy[], pending: Promise<void>[]): SiiTransport {
  return {
    mode: inner.mode,
    sandbox: inner.sandbox,
    async fetch(request, options) {
      const res = await inner.fetch(request, options);
      if (!res.body || NULL_BODY.has(res.status)) return res;
      const [copy, rest] = res.body.tee();
      const contentType = res.headers.get("content-type") ?? "";
      pending.push(
        firstBytes(copy, REDACT_MAX_CHARS).then(({ bytes, cut }) => {
          answers.push({ method: request.method, url: request.url, status: res.status, contentType, bytes, cut });
        }),
      );
      const out = new Response(rest, { status: res.status, statusText: res.statusText, headers: res.headers });
      Object.defineProperty(out, "url", { value: res.url });
      return out;
    },
  };
}
