// The webhook sender on Workers: the platform's fetch, which resolves names by itself and does not reach
// the platform's private addresses, so `check` is the URL policy alone (scheme, userinfo, fragment, literal
// addresses, internal names). Redirects are not followed: a 3xx is the receiver's answer (Standard Webhooks
// 1.0 counts only a 2xx as delivered).
import { webhookUrlProblem } from "../../lib/webhook-url.ts";
import { WEBHOOK_BOUNDS, type WebhookOutcome, type WebhookRequest, type WebhookSender } from "../../ports/webhooks.ts";

export interface WorkerWebhookSenderOptions {
  /** The bound of the whole exchange (WEBHOOK_BOUNDS.totalMs unless a test shortens it). */
  totalMs?: number;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** At most WEBHOOK_BOUNDS.readBytes of the answer, as UTF-8, cut to the characters kept; the rest is cancelled unread. */
async function boundedText(body: ReadableStream<Uint8Array> | null): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let read = 0;
  try {
    while (read < WEBHOOK_BOUNDS.readBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = WEBHOOK_BOUNDS.readBytes - read;
      chunks.push(value.byteLength > room ? value.subarray(0, room) : value);
      read += Math.min(value.byteLength, room);
    }
  } catch {
    // The body broke off (the bound, a reset): the status already answered; keep what arrived.
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(read);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  // By code points, so a cut never leaves half a surrogate pair.
  return Array.from(new TextDecoder("utf-8").decode(bytes)).slice(0, WEBHOOK_BOUNDS.keptChars).join("");
}

/** A fetch error in plain words (Workers' messages name no address of the platform). */
function failureReason(err: unknown, timedOut: boolean, totalMs: number): string {
  const { name, message } = (err ?? {}) as { name?: unknown; message?: unknown };
  if (timedOut || name === "TimeoutError" || name === "AbortError") return `timed out after ${seconds(totalMs)}`;
  const text = typeof message === "string" ? message : "";
  if (/refused/i.test(text)) return "the connection was refused";
  if (/\b(tls|ssl|certificate|handshake)\b/i.test(text)) return `TLS failed: ${text}`;
  if (/dns|resolve|not found/i.test(text)) return "the name did not resolve";
  return text ? `the delivery failed: ${text}` : "the delivery failed";
}

export function createWorkerWebhookSender(fetchImpl: typeof fetch = fetch, options: WorkerWebhookSenderOptions = {}): WebhookSender {
  const totalMs = options.totalMs ?? WEBHOOK_BOUNDS.totalMs;
  return {
    async check(url, allowLoopback) {
      return webhookUrlProblem(url, allowLoopback);
    },

    async send(req: WebhookRequest): Promise<WebhookOutcome> {
      const problem = webhookUrlProblem(req.url, req.allowLoopback);
      if (problem) return { state: "not_allowed", reason: problem };
      const signal = AbortSignal.timeout(totalMs);
      try {
        const res = await fetchImpl(req.url, { method: "POST", headers: req.headers, body: req.body, redirect: "manual", signal });
        const body = await boundedText(res.body);
        return { state: "answered", status: res.status, retryAfter: res.headers.get("retry-after"), body };
      } catch (err) {
        return { state: "failed", reason: failureReason(err, signal.aborted, totalMs) };
      }
    },
  };
}
