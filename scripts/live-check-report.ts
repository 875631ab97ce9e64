// What live-check makes of one gateway answer, and the file it saves of the SII's answer behind
// it: a body of `POST /sandbox/v1/replays` as it is, so `npm run live-check -- --replay DIR` (or
// that call by hand) makes the sandbox give the same answer and the bug reproduces locally.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bytesToBase64 } from "../src/lib/encoding.ts";
import { decodeLatin1, encodeLatin1 } from "../src/lib/latin1.ts";
import type { SiiAnswerCopy } from "./live-check-answers.ts";

export type Result = "works" | "refused by the SII" | "could not be read" | "read, but implausible" | "skipped" | "gateway error";

/** Results whose SII answer is saved: the gateway's reading is what failed. */
export const SAVED_RESULTS: readonly Result[] = ["could not be read", "read, but implausible"];

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read by path; a wrong guess is reported.
  body: any;
}

/**
 * What the user learns from one answer: 2xx works; the SII saying no; an answer the gateway could
 * not read; one it read but whose data broke what it promises (SII_FORMAT_CHANGED, naming the
 * check). `redact` hides what the gateway's message may quote of the SII.
 */
export function classify(answer: Answer, redact: (text: string) => string): { result: Result; detail: string } {
  const { status, body } = answer;
  if (status >= 200 && status < 300) return { result: "works", detail: String(status) };
  const code: string = body?.error_code ?? `HTTP ${status}`;
  const details = body?.details ?? {};
  const message = redact(String(body?.message ?? body?.raw ?? ""));
  const detail = `${status} ${code}: ${message.slice(0, 100)}`;
  if (status === 502 && code === "SII_FORMAT_CHANGED") {
    // src/sii/format-changed.ts: the service and the failed check say what to look at.
    const check = redact(String(details.check ?? "no check named")).slice(0, 160);
    return { result: "read, but implausible", detail: `${status} ${code}: ${String(details.service ?? "?")}: ${check}` };
  }
  if (status === 502 && code === "SII_GATEWAY_ERROR") {
    // No answer (timeout, network), the SII failing (5xx) or saying no are not reading problems.
    const noAnswer = typeof details.reason === "string" && details.sii_status === undefined && !/could not be read/i.test(body.message);
    const siiFailed = typeof details.sii_status === "number" && details.sii_status >= 500;
    // The SII's own state or error code read from its answer (sii_code, sii_estado, …): it said no.
    const siiCode = Object.keys(details).some((k) => k.startsWith("sii_") && !["sii_message", "sii_status", "sii_excerpt"].includes(k));
    const saidNo = siiCode || /refused|rechaz/i.test(String(body.message));
    return noAnswer || siiFailed || saidNo ? { result: "refused by the SII", detail } : { result: "could not be read", detail };
  }
  if (
    ["AUTH_ERROR", "SII_RATE_LIMIT", "SII_UNAVAILABLE", "HTTP_404", "NOT_IMPLEMENTED"].includes(code) ||
    status === 404 ||
    status === 409
  ) {
    return { result: "refused by the SII", detail };
  }
  return { result: "gateway error", detail };
}

/** The body of `POST /sandbox/v1/replays`: nothing more, so the file is posted as it is. */
export interface ReplayFile {
  service: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  count: number;
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The SII's answer as a replay, redacted by `redact` (src/sii/redact.ts: secrets, cookies, tokens,
 * keys, third parties' data, amounts) and written back in the encoding it came in (the gateway
 * reads valid UTF-8 as UTF-8 and anything else as latin1, src/lib/latin1.ts `decodeAs`). Only
 * the content type of its headers is kept: a Set-Cookie never reaches the file.
 */
export function replayFile(copy: SiiAnswerCopy, service: string, redact: (text: string) => string): ReplayFile {
  const utf8 = isUtf8(copy.bytes);
  const text = redact(utf8 ? new TextDecoder().decode(copy.bytes) : decodeLatin1(copy.bytes));
  const bytes = utf8 ? new TextEncoder().encode(text) : encodeLatin1(text);
  return {
    service,
    status: copy.status,
    headers: copy.contentType ? { "content-type": copy.contentType } : {},
    body: bytesToBase64(bytes),
    count: 1,
  };
}

/** The replay files of a folder, by the operation their name gives (`<operationId>.json`). */
export function readReplays(dir: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith(".json")) continue;
    const text = readFileSync(join(dir, name), "utf8");
    try {
      out.set(name.slice(0, -".json".length), JSON.parse(text));
    } catch (err) {
      throw new Error(`${name} is not JSON: ${(err as Error).message}`);
    }
  }
  return out;
}
