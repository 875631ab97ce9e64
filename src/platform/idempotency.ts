// Idempotency-Key on POSTs that change state: the first call runs, a repeat with the same body
// gets the stored answer for 24 h, a repeat with another body is a 409, and a repeat that arrives
// while the first still runs waits for it. Stored answers are sealed with SECRET_KEY (a CAF
// answer holds its private key) and the request fingerprint is keyed (the body holds the clave),
// so a copy of the store reveals neither; every store adapter gets only sealed records.
import type { Context } from "hono";
import { base64ToBytes, bytesToBase64 } from "../lib/encoding.ts";
import { keyedHash, open, seal } from "../lib/secret-box.ts";
import type { StoredResponse } from "../ports/stores.ts";
import { acceptWeights } from "./accept.ts";
import { refundCharge } from "./charge.ts";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_RECORDS_MAX } from "./schemas.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Longer than any upstream call may take, so a live first attempt is never taken over (Config.idempotencyLeaseMs). */
export const LEASE_MS = 5 * 60 * 1000;
const WAIT_MS = 60 * 1000;
/** Visible ASCII, 1 to IDEMPOTENCY_KEY_MAX characters; the OpenAPI parameter declares the same. */
const KEY = new RegExp(`^[\\x21-\\x7e]{1,${IDEMPOTENCY_KEY_MAX}}$`);
const KEPT_HEADERS = ["content-type", "content-disposition", "retry-after", "x-folios-remaining", "x-folios-low"];
/**
 * Answers that prove nothing was done: the key may be used again for a real attempt. A 500 that reached no
 * SII is one (a generation stopped half-way answers nothing signed and gives its folios back).
 */
function nothingHappened(res: Response, code: string | null, siiCalls: number): boolean {
  return res.status === 503 || code === "QUOTA_EXCEEDED" || code === "SII_RATE_LIMIT" || (res.status === 500 && siiCalls === 0);
}

/**
 * The Idempotency-Key of a request, checked as every call checks it (a `dry_run` too, so a
 * preview answers what the real call would); undefined when the request has none.
 */
export function idempotencyKey(c: Context<AppEnv>): string | undefined {
  const key = c.req.header("idempotency-key");
  if (key !== undefined && !KEY.test(key)) {
    throw new ApiError(400, "VALIDATION_ERROR", `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} visible ASCII characters`, {
      errors: [{ path: "Idempotency-Key", location: "header", message: `1 to ${IDEMPOTENCY_KEY_MAX} visible ASCII characters` }],
    });
  }
  return key;
}

/** Separates this key from the other uses of SECRET_KEY. */
const PURPOSE = "idempotency-answer";

/** HMAC under SECRET_KEY: equal requests compare equal, and a copy of the store cannot test guessed claves. */
async function fingerprint(c: Context<AppEnv>): Promise<string> {
  const url = new URL(c.req.url);
  const body = c.req.method === "GET" ? "" : await c.req.text();
  return keyedHash(c.get("deps").config.secretKey, `idempotency\n${c.req.method} ${url.pathname}?${url.searchParams.toString()}\n${body}`);
}

/**
 * The answer to keep: its status in clear (the adapters read nothing else), headers and body
 * sealed in `body`. The body is gzipped first (a generar answer is tens of MB of JSON, and every
 * store keeps the sealed text): `{ headers, gzip }`, gzip in base64.
 */
async function store(secret: string, res: Response): Promise<StoredResponse> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = res.headers.get(name);
    if (value) headers[name] = value;
  }
  const gzip = bytesToBase64(await through(res.clone().body, new CompressionStream("gzip")));
  return { status: res.status, headers: {}, body: await seal(secret, PURPOSE, JSON.stringify({ headers, gzip })) };
}

/** The bytes of `body` (none: empty) through a CompressionStream or DecompressionStream. */
async function through(body: ReadableStream<Uint8Array> | null, transform: TransformStream<Uint8Array, Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response((body ?? new Blob([]).stream()).pipeThrough(transform)).arrayBuffer());
}

/** A sealed answer as kept today (`gzip`), or as kept before answers were compressed (`body`). */
interface SealedAnswer {
  headers: Record<string, string>;
  gzip?: string;
  body?: string;
}

/** The stored body's bytes, from whichever form holds them. */
async function bodyOf(answer: SealedAnswer): Promise<Uint8Array> {
  if (answer.gzip === undefined) return base64ToBytes(answer.body ?? "");
  const gunzip = new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>;
  return through(new Blob([base64ToBytes(answer.gzip)]).stream(), gunzip);
}

/**
 * The stored answer again. Records kept before answers were sealed hold plain base64 (never a
 * ".") and expire within 24 h: they are replayed as they are. A sealed record that no longer
 * opens (SECRET_KEY changed) cannot be replayed, and running the call again could repeat it.
 */
async function replay(secret: string, stored: StoredResponse, accept: string | undefined): Promise<Response> {
  let answer: SealedAnswer = { headers: stored.headers, body: stored.body };
  if (stored.body.startsWith("v1.")) {
    const opened = await open(secret, PURPOSE, stored.body);
    if (opened === null) {
      throw new ApiError(409, "IDEMPOTENCY_CONFLICT", "The answer stored for this Idempotency-Key can no longer be read; use a new key");
    }
    answer = JSON.parse(opened) as SealedAnswer;
  }
  refuseUnacceptable(stored.status, answer.headers["content-type"], accept);
  const headers = new Headers(answer.headers);
  headers.set("Idempotent-Replayed", "true");
  return new Response(stored.status === 204 ? null : await bodyOf(answer), { status: stored.status, headers });
}

/**
 * A stored success in a media type the replay's Accept refuses is not served as if it were what
 * was asked (the first call may have negotiated it from its own Accept): the caller learns why.
 * Error answers are the JSON envelope whatever Accept says, as on a first call.
 */
function refuseUnacceptable(status: number, contentType: string | undefined, accept: string | undefined): void {
  if (status >= 300 || !contentType || !accept) return;
  const type = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  if (acceptWeights(accept)(type) > 0) return;
  throw new ApiError(
    409,
    "IDEMPOTENCY_CONFLICT",
    `The answer stored for this Idempotency-Key is ${type}, which this request's Accept header does not accept; repeat it with an Accept that includes ${type}, or use a new key`,
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `run` under the request's Idempotency-Key. Its answer is kept for replays only when
 * `worthKeeping()` says the attempt reached the SII or was charged: an answer that did neither
 * (a refusal the gateway gave on its own) releases the key, so refusals cannot fill the store.
 */
export async function withIdempotency(
  c: Context<AppEnv>,
  run: () => Promise<Response>,
  outcome: { worthKeeping(): boolean; siiCalls(): number },
): Promise<Response> {
  const key = idempotencyKey(c);
  const principal = c.get("principal");
  if (key === undefined || !principal) return run();
  const { idempotency, clock, config } = c.get("deps");
  const maxStored = config.idempotencyMaxRecords ?? IDEMPOTENCY_RECORDS_MAX;
  const leaseMs = config.idempotencyLeaseMs ?? LEASE_MS;
  const print = await fingerprint(c);
  // This attempt's name in the store: only the attempt holding the record completes or drops it.
  const attempt = crypto.randomUUID();
  const deadline = Date.now() + WAIT_MS;
  for (let pause = 25; ; pause = Math.min(pause * 2, 250)) {
    const now = clock.now();
    const begun = await idempotency.begin(principal.account, key, print, attempt, now, leaseMs, maxStored);
    if (begun.state === "completed") return replay(config.secretKey, begun.response, c.req.header("accept"));
    if (begun.state === "conflict") {
      throw new ApiError(409, "IDEMPOTENCY_CONFLICT", "This Idempotency-Key was already used with a different request");
    }
    if (begun.state === "full") {
      const retryAfter = Math.max(1, Math.ceil((begun.freesAt - now.getTime()) / 1000));
      throw new ApiError(
        429,
        "QUOTA_EXCEEDED",
        `Idempotency-Key limit reached: this account holds ${begun.stored} stored answers, the most it may hold is ${maxStored} (each is kept 24 h); retry later, or send the request without Idempotency-Key`,
        { headers: { "Retry-After": String(retryAfter) }, details: { idempotency_records: begun.stored, limit: maxStored } },
      );
    }
    if (begun.state === "started") break;
    if (Date.now() > deadline) {
      throw new ApiError(409, "IDEMPOTENCY_IN_PROGRESS", "A request with this Idempotency-Key is still running; retry later", {
        headers: { "Retry-After": "5" },
      });
    }
    await sleep(pause);
  }
  let res: Response;
  c.set("idempotent", { key, print, leaseMs });
  try {
    res = await run();
  } catch (err) {
    await idempotency.abandon(principal.account, key, print, attempt);
    throw err;
  }
  const code = res.headers.get("content-type")?.includes("json") ? await errorCode(res) : null;
  if (nothingHappened(res, code, outcome.siiCalls()) || !outcome.worthKeeping()) {
    await idempotency.abandon(principal.account, key, print, attempt);
    return res;
  }
  const kept = await idempotency.complete(
    principal.account,
    key,
    print,
    attempt,
    await store(config.secretKey, res),
    clock.now(),
    IDEMPOTENCY_TTL_MS,
  );
  if (!kept) {
    await res.body?.cancel();
    await refuseLate(c, outcome.siiCalls());
  }
  return res;
}

/**
 * This attempt ran past its lease and a retry took the key over: the retry's answer is the key's
 * one, so this one is never delivered (two answers to one key could be two documents signed on the
 * same folios). The caller pays for the retry; this attempt is refunded as any refusal before the
 * SII is (charged once it reached the SII: the SII did the work).
 */
async function refuseLate(c: Context<AppEnv>, siiCalls: number): Promise<never> {
  if (siiCalls === 0) await refundCharge(c);
  throw new ApiError(
    409,
    "IDEMPOTENCY_IN_PROGRESS",
    "This attempt with this Idempotency-Key ran past its lease and a retry of the request holds the key now; retry later to get that retry's answer",
    { headers: { "Retry-After": "5" } },
  );
}

async function errorCode(res: Response): Promise<string | null> {
  if (res.ok) return null;
  try {
    const body = (await res.clone().json()) as { error_code?: unknown };
    return typeof body.error_code === "string" ? body.error_code : null;
  } catch {
    return null;
  }
}
