// The error envelope, answered from the one exception type handlers throw (lib/api-error.ts).
import type { Context } from "hono";
import type { ApiError } from "../lib/api-error.ts";

export { ApiError, type ApiErrorInit, type ErrorCode, type FieldError } from "../lib/api-error.ts";

export function errorResponse(c: Context, error: ApiError): Response {
  const body: Record<string, unknown> = {
    success: false,
    error_code: error.code,
    message: error.message,
  };
  if (error.init.errors?.length) body.errors = error.init.errors;
  if (error.init.details) body.details = error.init.details;
  body.request_id = c.get("requestId") ?? "";
  body.timestamp = new Date().toISOString();
  for (const [name, value] of Object.entries(error.init.headers ?? {})) c.header(name, value);
  return c.json(body, error.status);
}
