// Live mode only: the last SII answer a request read whole, so a 502 "could not read the SII's
// answer" carries a short redacted excerpt of it (`details.sii_excerpt`) a user can put in a bug
// report. Kept per request in memory, never stored or logged.
import { ApiError } from "../lib/api-error.ts";
import { REDACT_MAX_CHARS, redactedExcerpt, redactSecrets } from "./redact.ts";

export interface AnswerLog {
  /** The last answer read whole (at most REDACT_MAX_CHARS), or none when the last call got no answer. */
  last?: string;
  /** Session cookies sent to the SII: secrets an answer may echo without a telling name. */
  secrets: Set<string>;
}

const logs = new WeakMap<object, AnswerLog>();

/** The answer log of one request (`key`: its context), created on first use. */
export function answerLogFor(key: object): AnswerLog {
  let log = logs.get(key);
  if (!log) {
    log = { secrets: new Set() };
    logs.set(key, log);
  }
  return log;
}

/** A call starts: what an earlier call read is no longer what a failure would be about. */
export function forgetAnswer(log: AnswerLog | undefined): void {
  if (log) log.last = undefined;
}

export function recordAnswer(log: AnswerLog | undefined, request: Request, text: string): void {
  if (!log) return;
  log.last = text.slice(0, REDACT_MAX_CHARS);
  for (const pair of (request.headers.get("cookie") ?? "").split(";")) {
    const value = pair.slice(pair.indexOf("=") + 1).trim();
    if (value.length >= 8 && log.secrets.size < 64) log.secrets.add(value);
  }
}

/** What the request itself says the caller owns: secrets sent in its body and RUTs in its path (read by the API layer). */
export interface CallerData {
  secrets: string[];
  ownRuts: string[];
}

/**
 * A 502 SII_GATEWAY_ERROR (or SII_FORMAT_CHANGED) raised after an answer was read gets `details.sii_excerpt`: the answer,
 * redacted, at most 500 characters. The SII's own text in `sii_message` loses the caller's secrets.
 * Requests without an answer log (sandbox mode) are left as they are. `key` is the request the log was
 * opened for (answerLogFor); `callerData` is asked only when an excerpt is made.
 */
export function withSiiExcerpt(key: object, callerData: () => CallerData, err: ApiError): ApiError {
  if (err.status !== 502 || (err.code !== "SII_GATEWAY_ERROR" && err.code !== "SII_FORMAT_CHANGED")) return err;
  const log = logs.get(key);
  if (log?.last === undefined) return err;
  const caller = callerData();
  const secrets = [...caller.secrets, ...log.secrets];
  const details: Record<string, unknown> = { ...err.init.details };
  if (typeof details.sii_message === "string") details.sii_message = redactSecrets(details.sii_message, secrets);
  // A format check names the part it could not read; the whole answer's start says the rest.
  details.sii_excerpt ??= redactedExcerpt(log.last, { secrets, ownRuts: caller.ownRuts });
  return new ApiError(err.status, err.code, err.message, { ...err.init, details });
}
