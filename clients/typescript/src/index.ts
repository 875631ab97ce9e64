// A typed client of the SII gateway over openapi-fetch. Paths, parameters, bodies and answers are the
// types openapi-typescript generated from the OpenAPI document (./generated/, `npm run schemas`); this
// file adds what every integrator writes next: the token, a fresh Idempotency-Key on the operations
// that document one, errors as one class, file answers as bytes or base64, and retries of reads.
import createClient, { type Client, type ClientPathsWithMethod, type FetchResponse, type MaybeOptionalInit } from "openapi-fetch";
import { OPERATIONS } from "./generated/operations.ts";
import type { components, paths } from "./generated/schema.ts";

export { verifyWebhook, WEBHOOK_TOLERANCE_SECONDS, type WebhookEvent, WebhookVerificationError } from "./webhooks.ts";
export type { components, paths };

export type Method = "get" | "put" | "post" | "patch" | "delete";

export interface RetryOptions {
  /** Attempts after the first (default 2). */
  retries?: number;
  /** The most seconds the waits of one call add up to (default 30): a `Retry-After` beyond what is left is not waited for. */
  maxWaitSeconds?: number;
  /** How to wait (default `setTimeout`): a scheduler or a test passes its own. */
  sleep?: (ms: number) => Promise<void>;
}

export interface GatewayClientOptions {
  /** The gateway's origin, e.g. `https://gateway.example.com` (no trailing path). */
  baseUrl: string;
  /** The API token, sent as `X-API-Token`. */
  token?: string;
  /** Headers sent on every call (an operator's `Authorization: Bearer <ADMIN_TOKEN>`, say). */
  headers?: Record<string, string>;
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries of reads answered 429 or 503; `false` for none. */
  retry?: RetryOptions | false;
}

type Raw = Client<paths, "application/json">;
/** What openapi-fetch takes for an operation: params, body, headers, and the rest of `RequestInit`. */
export type Init<P extends keyof paths, M extends Method> = MaybeOptionalInit<paths[P], M>;
type RequiredKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? never : K }[keyof T];
/** The init argument is required when the operation has required parameters or a body. */
type InitArg<I> = RequiredKeys<I> extends never ? [init?: I] : [init: I];

/** A success: `data` is the answer the document gives for it (the envelope `{ success, message, data, timestamp }`). */
export interface Result<Data> {
  data: Data;
  response: Response;
}
type Success<P extends keyof paths, M extends Method, I> = Result<
  NonNullable<FetchResponse<NonNullable<paths[P][M]>, I, "application/json">["data"]>
>;
type Call<M extends Method> = <P extends ClientPathsWithMethod<Raw, M>, I extends Init<P, M>>(
  path: P,
  ...init: InitArg<I>
) => Promise<Success<P, M, I>>;

type Operations = typeof OPERATIONS;
/** `METHOD /path` of the operations whose success may be a file (PDF, ESC/POS, CSV, HTML). */
type FileOperation = { [K in keyof Operations]: Operations[K]["files"]["length"] extends 0 ? never : K }[keyof Operations];
export type FilePath<M extends Method> = FileOperation extends infer K ? (K extends `${Uppercase<M>} ${infer P}` ? P : never) : never;
export type FileForm = "bytes" | "base64";
export interface FileResult<A extends FileForm> {
  /** The file: its bytes, or base64 of them. */
  data: A extends "base64" ? string : Uint8Array;
  /** Its media type, as the gateway answered it (`application/pdf`, `text/csv; charset=ISO-8859-1`, …). */
  mediaType: string;
  /** The file name `Content-Disposition` gives, when it gives one. */
  filename?: string;
  response: Response;
}

/** The codes the gateway answers (`error_code`), and the client's own two: no answer, or one that is not the gateway's. */
export type ErrorCode = components["schemas"]["Error"]["error_code"] | "NETWORK_ERROR" | "UNEXPECTED_ANSWER";
export type FieldError = NonNullable<components["schemas"]["Error"]["errors"]>[number];

/** Every failure of a call: the gateway's error envelope, a network failure, or an answer that is not the gateway's. */
export class GatewayError extends Error {
  override readonly name = "GatewayError";
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  readonly error_code: ErrorCode;
  readonly request_id?: string;
  /** The fields refused, on 400 and 422 `VALIDATION_ERROR`. */
  readonly errors: FieldError[];
  readonly details?: Record<string, unknown>;
  /** Seconds to wait before trying again, from `Retry-After`. */
  readonly retryAfter?: number;
  readonly response?: Response;

  constructor(init: {
    status: number;
    error_code: ErrorCode;
    message: string;
    request_id?: string;
    errors?: FieldError[];
    details?: Record<string, unknown>;
    retryAfter?: number;
    response?: Response;
    cause?: unknown;
  }) {
    super(init.message, { cause: init.cause });
    this.status = init.status;
    this.error_code = init.error_code;
    this.request_id = init.request_id;
    this.errors = init.errors ?? [];
    this.details = init.details;
    this.retryAfter = init.retryAfter;
    this.response = init.response;
  }
}

/** Seconds from `Retry-After` (delta-seconds or an HTTP date), if it has a readable one. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

type Facts = { scope: string | null; idempotencyKey: boolean; files: readonly string[] };

function factsOf(method: Method, path: string): Facts | undefined {
  return (OPERATIONS as Record<string, Facts>)[`${method.toUpperCase()} ${path}`];
}

/**
 * Which calls are retried: a GET, or an operation the document gives a `…:read` scope that takes no
 * `Idempotency-Key`. Anything else may change state at the SII or in the gateway, and is never retried.
 */
export function isRead(method: Method, path: string): boolean {
  const facts = factsOf(method, path);
  return method === "get" || (facts !== undefined && !facts.idempotencyKey && /:read$/.test(facts.scope ?? ""));
}

const RETRIED_STATUSES = new Set([429, 503]);

const isJson = (response: Response) => /[/+]json\b/i.test(response.headers.get("content-type") ?? "");

function unexpected(response: Response, text: string): GatewayError {
  const excerpt = text.replace(/\s+/g, " ").trim().slice(0, 200);
  return new GatewayError({
    status: response.status,
    error_code: "UNEXPECTED_ANSWER",
    message: `HTTP ${response.status} (${response.headers.get("content-type") ?? "no content type"}) that is not the gateway's answer${excerpt ? `: ${excerpt}` : ""}`,
    request_id: response.headers.get("x-request-id") ?? undefined,
    retryAfter: retryAfterSeconds(response.headers),
    response,
  });
}

/** The error a refusal stands for: the gateway's envelope, or an answer that is not one (a proxy's page, say). */
function refusal(response: Response, body: unknown): GatewayError {
  if (typeof body !== "object" || body === null || typeof (body as { error_code?: unknown }).error_code !== "string") {
    return unexpected(response, typeof body === "string" ? body : JSON.stringify(body ?? ""));
  }
  const envelope = body as components["schemas"]["Error"];
  return new GatewayError({
    status: response.status,
    error_code: envelope.error_code,
    message: envelope.message,
    request_id: envelope.request_id ?? response.headers.get("x-request-id") ?? undefined,
    errors: envelope.errors,
    details: envelope.details,
    retryAfter: retryAfterSeconds(response.headers),
    response,
  });
}

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function filenameOf(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition)?.[1];
  if (extended) return decodeURIComponent(extended.trim());
  return /filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/i
    .exec(disposition)
    ?.slice(1)
    .find((name) => name !== undefined);
}

export function createGatewayClient(options: GatewayClientOptions) {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retry = options.retry === false ? { retries: 0 } : (options.retry ?? {});
  const retries = retry.retries ?? 2;
  const maxWaitSeconds = (retry as RetryOptions).maxWaitSeconds ?? 30;
  const sleep = (retry as RetryOptions).sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const raw: Raw = createClient<paths, "application/json">({
    baseUrl: options.baseUrl,
    fetch: baseFetch,
    headers: { ...options.headers, ...(options.token ? { "X-API-Token": options.token } : {}) },
  });

  /** Sends `request`, again after `Retry-After` while it is answered 429 or 503, within the bounds. */
  async function withRetries(request: Request): Promise<Response> {
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      const response = await baseFetch(request.clone());
      if (!RETRIED_STATUSES.has(response.status) || attempt >= retries) return response;
      const wait = retryAfterSeconds(response.headers) ?? 2 ** attempt;
      if (waited + wait > maxWaitSeconds) return response;
      await response.body?.cancel();
      await sleep(wait * 1000);
      waited += wait;
    }
  }

  async function send(method: Method, path: string, init: Record<string, unknown>, file: boolean): Promise<Result<unknown>> {
    const facts = factsOf(method, path);
    const headers = new Headers(init.headers as HeadersInit | undefined);
    if (facts?.idempotencyKey && !headers.has("idempotency-key")) headers.set("Idempotency-Key", crypto.randomUUID());
    if (file && !headers.has("accept")) headers.set("Accept", facts?.files.join(", ") ?? "*/*");
    const read = isRead(method, path);
    const fetch = async (request: Request): Promise<Response> => {
      const response = read ? await withRetries(request) : await baseFetch(request);
      // A success in the other form than asked (JSON for a file, a page for JSON) is not the gateway's answer.
      if (response.ok && response.status !== 204 && isJson(response) === file) throw unexpected(response, await response.text());
      return response;
    };
    let answer: { data?: unknown; error?: unknown; response: Response };
    try {
      answer = await raw.request(method, path as never, { ...init, headers, fetch, ...(file ? { parseAs: "arrayBuffer" } : {}) } as never);
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      const network = error instanceof TypeError;
      throw new GatewayError({
        status: 0,
        error_code: network ? "NETWORK_ERROR" : "UNEXPECTED_ANSWER",
        message: `${method.toUpperCase()} ${path}: ${network ? "no answer" : "unreadable answer"} (${error instanceof Error ? error.message : String(error)})`,
        cause: error,
      });
    }
    if (!answer.response.ok) throw refusal(answer.response, answer.error);
    return { data: answer.data, response: answer.response };
  }

  const call =
    <M extends Method>(method: M): Call<M> =>
    (path, ...init) =>
      send(method, path, (init[0] ?? {}) as Record<string, unknown>, false) as never;

  return {
    GET: call("get"),
    PUT: call("put"),
    POST: call("post"),
    PATCH: call("patch"),
    DELETE: call("delete"),
    /**
     * An operation's file answer (PDF, ESC/POS, CSV, HTML), as bytes or as base64 (`as`, default bytes).
     * `Accept` asks for the operation's file media types; give `Accept` or the `formato` query to pick one.
     */
    async file<M extends Method, P extends FilePath<M> & ClientPathsWithMethod<Raw, M>, I extends Init<P, M>, A extends FileForm = "bytes">(
      method: M,
      path: P,
      init: I & { as?: A },
    ): Promise<FileResult<A>> {
      const { as, ...rest } = init as I & { as?: A };
      const { data, response } = await send(method, path, rest as Record<string, unknown>, true);
      const bytes = new Uint8Array(data as ArrayBuffer);
      return {
        data: (as === "base64" ? base64Of(bytes) : bytes) as FileResult<A>["data"],
        mediaType: response.headers.get("content-type") ?? "application/octet-stream",
        filename: filenameOf(response.headers.get("content-disposition")),
        response,
      };
    },
    /** openapi-fetch's own client, with the same base URL and headers, for what this wrapper does not cover. */
    raw,
  };
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;
