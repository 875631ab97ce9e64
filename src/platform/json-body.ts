// A large JSON body is read and parsed in slices that yield before the operation's validator reads
// it. Hono's `c.req.json()` is one `JSON.parse` of the decoded text: for an upload of 2 000
// documents (~12 MB of base64 in one string) joining, decoding and parsing held the thread 20–90 ms.
// The body's bytes are read (and kept where Hono keeps a body read, so any later reader gets them)
// and parsed by `parseJsonBytesAsync`; the validator then takes that value. Small bodies, and bodies
// the sliced reading refuses, are parsed by Hono's own path (so a malformed body gets the
// validator's usual answer); a body of no declared length is read here first, to know its size.
// Reading and parsing a large body is work whatever the answer, so it is paid for when the answer
// refuses it (`readingFee`), and the fee is taken before a byte is read: an account without the
// units left gets 429 `QUOTA_EXCEEDED` for free, never a parse. It runs after the operation's scope
// and `dry_run` checks (operation.ts), so those refusals read nothing either.
import type { Context, MiddlewareHandler } from "hono";
import { parseJsonBytesAsync } from "../lib/json-async.ts";
import { type Pause, yielder } from "../lib/yielder.ts";
import { type Reservation, reserveUnits, settleReservation } from "./charge.ts";
import type { AppEnv } from "./context.ts";
import { isDryRun } from "./dry-run.ts";
import { ApiError } from "./errors.ts";

/** Bodies larger than this (bytes, as declared) are parsed in slices. */
export const SLICED_JSON_BODY = 1024 * 1024;

/** The media types Hono's validator reads as JSON. */
const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;

/** Whether a Content-Type header names a media type Hono's json validator reads (others it leaves unread). */
export const isJsonMediaType = (header: string | undefined) => JSON_TYPE.test((header ?? "").split(";")[0]?.trim() ?? "");

/**
 * A large body is held, with what is parsed from it (about three times its size), until its answer
 * is made, whatever the account's quota. So what one account and the whole process may hold
 * at once is bounded here, before any byte is read: an account at most this many large bodies at
 * a time, the process at most this many times `MAX_BODY_BYTES` of them (declared lengths).
 */
export const LARGE_BODIES_PER_ACCOUNT = 2;
export const LARGE_BODIES_IN_PROCESS = 4;

const held = { bytes: 0, byAccount: new Map<string, number>() };

/**
 * Bytes a unit of the reading fee pays for: reading a MiB of an upload (its JSON, base64, Latin-1
 * and the XML screen) costs about 60 ms of CPU, three times a median unit (bench/README.md "CPU
 * per quota unit"); a unit per half MiB keeps a refused upload within that budget.
 */
export const READING_FEE_BYTES = 512 * 1024;

/**
 * What reading a body of `bytes` costs when its answer refuses it (any 4xx): one unit per started
 * 512 KiB beyond the first MiB, so a body under the sliced size is free as before, and an 18 MB
 * upload refused is 33 units. An accepted answer, a replay, a 5xx and a dry run pay nothing for it.
 */
export const readingFee = (bytes: number) => Math.ceil(Math.max(0, bytes - SLICED_JSON_BODY) / READING_FEE_BYTES);

function refuseLargeBody(reason: "account_uploads" | "gateway_uploads", message: string): ApiError {
  return new ApiError(429, "SII_RATE_LIMIT", message, { headers: { "Retry-After": "1" }, details: { reason } });
}

export const slicedJsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const body = c.req.raw.body;
  if (!isJsonMediaType(c.req.header("content-type")) || !body) return next();
  // A body of no declared length (chunked) is read here too, so what it costs is paid as it arrives.
  const declared = Number.parseInt(c.req.header("content-length") ?? "", 10);
  if (declared <= SLICED_JSON_BODY) return next();
  const release = Number.isNaN(declared) ? () => {} : hold(c, declared);
  try {
    await readPaid(c, body, declared || 0, next);
  } finally {
    release();
  }
};

/** Counts a large body of `length` declared bytes as held (429 past a bound); answers how to release it. */
function hold(c: Context<AppEnv>, length: number): () => void {
  const account = c.get("principal")?.account ?? "";
  const mine = held.byAccount.get(account) ?? 0;
  if (mine >= LARGE_BODIES_PER_ACCOUNT) {
    throw refuseLargeBody(
      "account_uploads",
      `This account already has ${mine} requests over ${SLICED_JSON_BODY} bytes in progress (at most ${LARGE_BODIES_PER_ACCOUNT} at once); retry when one has finished`,
    );
  }
  if (held.bytes + length > LARGE_BODIES_IN_PROCESS * c.get("deps").config.maxBodyBytes) {
    throw refuseLargeBody("gateway_uploads", "The gateway is reading as many large requests as it holds at once; retry shortly");
  }
  held.bytes += length;
  held.byAccount.set(account, mine + 1);
  return () => {
    held.bytes -= length;
    const left = (held.byAccount.get(account) ?? 1) - 1;
    if (left > 0) held.byAccount.set(account, left);
    else held.byAccount.delete(account);
  };
}

/**
 * Reads the body with its reading fee paid ahead: for the `declared` length before a byte is read,
 * then for whatever arrives beyond it (a body of no declared length: as it arrives). Runs the
 * operation and settles the fee on its answer. A preview (`dry_run`) stays free (dry-run.ts).
 */
async function readPaid(c: Context<AppEnv>, body: ReadableStream<Uint8Array>, declared: number, next: () => Promise<void>) {
  const fee: Reservation | null = isDryRun(c) ? null : { units: 0 };
  const pay = async (bytes: number) => {
    if (fee)
      await reserveUnits(
        c,
        fee,
        readingFee(bytes) - fee.units,
        `reading ${bytes} bytes of this body (one unit per started 512 KiB beyond the first MiB)`,
      );
  };
  await pay(declared);
  let read: number;
  try {
    read = await readSliced(c, body, pay);
  } catch (err) {
    // Refused part-way, the fee for what kept arriving not paid: what was paid stays paid.
    if (fee) await settleReservation(c, fee, fee.units);
    throw err;
  }
  await next();
  if (fee) await settleFee(c, fee, read);
}

/**
 * Reads the body in slices, paying for it as it arrives (`pay`, which may refuse it), and hands
 * its parsed value to every later reader of the request's JSON; answers how many bytes it read (0:
 * the client went away mid-body, and the validator's own reading answers it, as before). A body
 * of no declared length that turns out small is left to Hono's own parse of the same bytes.
 */
async function readSliced(c: Context<AppEnv>, body: ReadableStream<Uint8Array>, pay: (bytes: number) => Promise<void>): Promise<number> {
  const pause = yielder(5, 8);
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = await bodyBytes(body, pause, pay);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    return 0;
  }
  // Kept where Hono looks for a body already read, so every later reader gets these bytes.
  Object.assign(c.req.bodyCache, { arrayBuffer: Promise.resolve(bytes.buffer) });
  if (bytes.length <= SLICED_JSON_BODY) return bytes.length;
  try {
    const parsed = await parseJsonBytesAsync(bytes, pause);
    // Every reader of this request's JSON (the validator) gets the value read in slices.
    Object.defineProperty(c.req, "json", { value: () => Promise.resolve(parsed), configurable: true });
  } catch {
    // Malformed: Hono's own reading of the same bytes answers it, as before.
  }
  return bytes.length;
}

/**
 * Keeps the reading fee of what was read when the answer refuses the request (4xx, not a replay
 * of a stored answer), saying what the request was charged in `details.unidades_cobradas`; gives
 * it back otherwise.
 */
async function settleFee(c: Context<AppEnv>, fee: Reservation, read: number): Promise<void> {
  const refused = c.res.status >= 400 && c.res.status < 500 && c.res.headers.get("idempotent-replayed") !== "true";
  const kept = refused ? readingFee(read) : 0;
  await settleReservation(c, fee, kept);
  if (kept > 0 && JSON_TYPE.test(c.res.headers.get("content-type")?.split(";")[0] ?? "")) {
    c.res = await withUnitsCharged(c.res, c.get("quota")?.units ?? 0);
  }
}

/** An error envelope with `details.unidades_cobradas` (its body is a few hundred bytes). */
async function withUnitsCharged(res: Response, units: number): Promise<Response> {
  const body = (await res.json()) as { details?: Record<string, unknown> };
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify({ ...body, details: { ...body.details, unidades_cobradas: units } }), {
    status: res.status,
    headers,
  });
}

/**
 * The body's bytes, joined a chunk at a time (reading it whole joined ~12 MB in one step), `pay`
 * told the size after each chunk (it may refuse the rest, which is then not read). Memory
 * grows with what arrived, never with what was declared: a client declaring 32 MiB and sending
 * slowly holds no more than it sent.
 */
async function bodyBytes(
  body: ReadableStream<Uint8Array>,
  pause: Pause,
  pay: (bytes: number) => Promise<void>,
): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks.push(read.value);
    size += read.value.length;
    await pay(size).catch(async (err: unknown) => {
      await reader.cancel().catch(() => {});
      throw err;
    });
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
