// Turns anything thrown during a request into the error envelope. Unexpected exceptions become a
// 500 with the request id only: their text may hold request data, so it goes to the log, not out.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { CredentialError } from "../certificates/credential-error.ts";
import { DteError } from "../dte/errors.ts";
import { withSiiExcerpt } from "../sii/excerpt.ts";
import { callerData } from "./caller-data.ts";
import type { AppEnv } from "./context.ts";
import { ApiError, type ErrorCode, errorResponse } from "./errors.ts";

/** `emptyBody`: the request declared a body of no bytes, which JSON cannot be but deserves its own words. */
export function toApiError(err: unknown, emptyBody = false): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof DteError) return fromDteError(err);
  if (err instanceof CredentialError) return fromCredentialError(err);
  if (err instanceof HTTPException) {
    if (err.status === 400 && /malformed json/i.test(err.message)) {
      if (emptyBody) {
        return new ApiError(422, "VALIDATION_ERROR", "The request body is empty: this operation takes a JSON object", {
          errors: [{ path: "", location: "body", message: "is empty" }],
        });
      }
      return new ApiError(422, "VALIDATION_ERROR", "The request body is not valid JSON", {
        errors: [{ path: "", location: "body", message: "malformed JSON" }],
      });
    }
    if (err.status === 413) return new ApiError(413, "PAYLOAD_TOO_LARGE", "The request body is too large");
    if (err.status === 415) {
      return new ApiError(415, "HTTP_415", "The request body must be JSON: send Content-Type: application/json", {
        errors: [{ path: "content-type", location: "header", message: "must be application/json" }],
      });
    }
    // Any other refusal keeps one of the documented codes (ERROR_CODES in schemas.ts).
    const status = err.status as ContentfulStatusCode;
    const code: ErrorCode =
      status === 401 || status === 404 || status === 405 ? `HTTP_${status}` : status < 500 ? "VALIDATION_ERROR" : "INTERNAL_ERROR";
    return new ApiError(status, code, err.message || `HTTP ${status}`);
  }
  return null;
}

/** The DTE engine's refusals are the caller's to fix: 400, naming each field. */
export function fromDteError(err: DteError): ApiError {
  return new ApiError(400, "VALIDATION_ERROR", err.message, { errors: err.errors, ...(err.details ? { details: err.details } : {}) });
}

/** A certificate that cannot be used is the caller's to fix: 400 AUTH_ERROR, naming the field. */
export function fromCredentialError(err: CredentialError): ApiError {
  return new ApiError(400, "AUTH_ERROR", err.message, { errors: [{ path: err.path, location: "body", message: err.message }] });
}

export function failureResponse(c: Context<AppEnv>, err: unknown): Response {
  const length = c.req.header("content-length");
  const known = toApiError(err, length === "0" || (length === undefined && c.req.raw.body === null));
  if (known)
    return errorResponse(
      c,
      withSiiExcerpt(c, () => callerData(c), known),
    );
  const error = err instanceof Error ? err : new Error(String(err));
  c.get("deps")?.log.log({
    level: "error",
    msg: "unhandled exception",
    request_id: c.get("requestId"),
    error: error.name,
    stack: error.stack?.split("\n").slice(1, 6).join("\n"),
  });
  return errorResponse(
    c,
    new ApiError(500, "INTERNAL_ERROR", "Internal error; quote the request_id when reporting it", {
      details: { request_id: c.get("requestId") },
    }),
  );
}
