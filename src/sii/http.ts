// One SII request: timeout, retries for reads only, and the SII's failure signals turned into
// the gateway's errors (docs/sii-services.md §13). The SII's own text always travels in `details`.

import { ApiError } from "../lib/api-error.ts";
import { responseText } from "../lib/latin1.ts";
import type { ClientCertificate, ProxyRoute, SiiTransport } from "../ports/transport.ts";
import { decodeHtml } from "./entities.ts";
import { type AnswerLog, forgetAnswer, recordAnswer } from "./excerpt.ts";

export interface SiiContext {
  transport: SiiTransport;
  /** Per-call time limit in milliseconds. */
  timeoutMs: number;
  /** The account's proxy toward the SII, if it set one. */
  proxy?: ProxyRoute | null;
  /** Live mode: where the last answer read is kept, for the excerpt a 502 carries (excerpt.ts). */
  answers?: AnswerLog;
}

export interface SiiCall {
  /** Short name for errors and logs: `seed`, `token`, `clave_login`, … */
  service: string;
  /** Reads may be retried once; writes never are. */
  read: boolean;
  /** Present this TLS client certificate (certificate logins). */
  clientCertificate?: ClientCertificate;
}

export interface SiiAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** Thrown by a transport that cannot make a call without a setting the operator has not made. */
export class NotConfigured extends Error {
  readonly setting: string;

  constructor(setting: string, message: string) {
    super(message);
    this.setting = setting;
  }
}

const MAINTENANCE = /no se puede responder a sus requerimientos/i;
const SESSION_LIMIT = /superado el m[áa]ximo de sesiones/i;
const THROTTLED = /superado el l[íi]mite/i;

/** The visible text of an SII page, trimmed for `details`. */
export function pageText(html: string, max = 500): string {
  const visible = html.replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]+>/g, " ");
  // Entities after the tags are gone, so a decoded `&lt;` is never taken for markup.
  return decodeHtml(visible)
    .replace(/[\s\u00a0]+/g, " ")
    .trim()
    .slice(0, max);
}

/** Failure signals any SII page can carry, whatever was asked. */
export function checkSiiPage(service: string, answer: SiiAnswer): void {
  const text = pageText(answer.text);
  if (MAINTENANCE.test(answer.text) || answer.status === 503) {
    throw new ApiError(503, "SII_UNAVAILABLE", "The SII is not answering requests right now (maintenance); retry in about 5 minutes", {
      headers: { "Retry-After": "300" },
      details: { service, sii_status: answer.status, sii_message: text },
    });
  }
  if (SESSION_LIMIT.test(answer.text)) {
    throw new ApiError(429, "SII_RATE_LIMIT", "The SII refuses more sessions for this taxpayer; they clear after about 30 minutes", {
      headers: { "Retry-After": "1800" },
      details: { service, sii_message: text },
    });
  }
  if (answer.status === 429 || THROTTLED.test(answer.text)) {
    throw new ApiError(429, "SII_RATE_LIMIT", "The SII is throttling requests; retry later", {
      headers: { "Retry-After": answer.headers.get("retry-after") ?? "60" },
      details: { service, sii_status: answer.status, sii_message: text },
    });
  }
  if (answer.status >= 500) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", `The SII failed (HTTP ${answer.status})`, {
      details: { service, sii_status: answer.status, sii_message: text },
    });
  }
}

/** One attempt: the answer's headers, then `read` of it, both within the time limit. */
async function once<T>(ctx: SiiContext, request: Request, call: SiiCall, read: (res: Response) => Promise<T>): Promise<T> {
  const service = call.service;
  forgetAnswer(ctx.answers);
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(
        new ApiError(502, "SII_GATEWAY_ERROR", `The SII did not answer within ${ctx.timeoutMs} ms`, {
          details: { service, reason: "timeout" },
        }),
      );
    }, ctx.timeoutMs);
  });
  try {
    const sent = ctx.transport.fetch(new Request(request, { signal: controller.signal }), {
      clientCertificate: call.clientCertificate,
      proxy: ctx.proxy,
    });
    const res = await Promise.race([sent, timedOut]);
    return await Promise.race([read(res), timedOut]);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof NotConfigured)
      throw new ApiError(501, "NOT_IMPLEMENTED", err.message, { details: { service, setting: err.setting } });
    throw new ApiError(502, "SII_GATEWAY_ERROR", "Could not reach the SII", {
      details: { service, reason: describeFailure(err) },
    });
  } finally {
    clearTimeout(timer);
  }
}

/** A network failure's message with its cause (`fetch failed` alone says nothing). */
function describeFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
  return `${err.message}${cause}`;
}

/** Sends a request to the SII; checks the answer for the SII's failure signals. */
export function siiFetch(ctx: SiiContext, request: Request, call: SiiCall): Promise<SiiAnswer> {
  return siiRead(ctx, request, call, async (res) => {
    const answer = await wholeAnswer(res);
    recordAnswer(ctx.answers, request, answer.text);
    checkSiiPage(call.service, answer);
    return answer;
  });
}

async function wholeAnswer(res: Response): Promise<SiiAnswer> {
  return { status: res.status, headers: res.headers, text: await responseText(res) };
}

/**
 * Sends a request and hands the answer to `read` (e.g. a binary file), within the time limit;
 * a read may be retried once when the SII failed, a write never is. `read` checks what the
 * answer carries.
 */
export async function siiRead<T>(ctx: SiiContext, request: Request, call: SiiCall, read: (res: Response) => Promise<T>): Promise<T> {
  // The body is read once per attempt, so keep a copy for the retry.
  const body = request.body ? await request.arrayBuffer() : undefined;
  const attempt = () => once(ctx, new Request(request, { body }), call, read);
  try {
    return await attempt();
  } catch (err) {
    const retryable = err instanceof ApiError && err.code === "SII_GATEWAY_ERROR";
    if (!call.read || !retryable) throw err;
    return attempt();
  }
}

export interface SiiStreamAnswer {
  status: number;
  headers: Headers;
  body: ReadableStream<Uint8Array>;
}

/**
 * Like `siiFetch`, for answers too large to hold: resolves when the headers arrive, the body unread.
 * An error status (5xx, 429) is read whole (a small page) and checked as `siiFetch` checks it; the
 * caller checks what a 200 carries (a maintenance page comes as one) with `checkSiiPage`, and
 * limits the wait for each piece of the body with `readWithin`.
 */
export function siiOpen(ctx: SiiContext, request: Request, call: SiiCall): Promise<SiiStreamAnswer> {
  return siiRead(ctx, request, call, async (res) => {
    if (res.status >= 500 || res.status === 429) {
      const answer = await wholeAnswer(res);
      recordAnswer(ctx.answers, request, answer.text);
      checkSiiPage(call.service, answer);
    }
    return { status: res.status, headers: res.headers, body: res.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() }) };
  });
}

/** The next piece of an answer's body, or 502 when the SII stops sending for the time limit. */
export async function readWithin(
  ctx: SiiContext,
  service: string,
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Rejected before the cancel: cancelling ends the pending read as if the answer were whole.
      reject(
        new ApiError(502, "SII_GATEWAY_ERROR", `The SII stopped sending for ${ctx.timeoutMs} ms`, {
          details: { service, reason: "timeout" },
        }),
      );
      reader.cancel().catch(() => undefined);
    }, ctx.timeoutMs);
  });
  try {
    return await Promise.race([reader.read(), stalled]);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII's answer broke off", { details: { service, reason: describeFailure(err) } });
  } finally {
    clearTimeout(timer);
  }
}
