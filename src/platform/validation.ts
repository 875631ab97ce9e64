// zod failures to the error envelope: path and query problems are 400, body problems 422,
// each field named in `errors[]`, the first MAX_FIELD_ERRORS of them: a body of a million bad
// fields must not get an answer of a million entries (`details.errors_total` gives the count).
import type { Context } from "hono";
import type { z } from "zod";
import { ApiError, type FieldError } from "./errors.ts";

type Target = "json" | "form" | "query" | "param" | "header" | "cookie";

const locations: Record<Target, FieldError["location"]> = {
  json: "body",
  form: "body",
  query: "query",
  param: "path",
  header: "header",
  cookie: "header",
};

/** Enough to fix a request by; a client that sent more mistakes sees them on the next try. */
export const MAX_FIELD_ERRORS = 100;

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && /received undefined/.test(issue.message)) return "is required";
  return issue.message;
}

/** The first `MAX_FIELD_ERRORS` issues as field errors. */
export function fieldErrors(error: z.ZodError, target: Target): FieldError[] {
  return error.issues.slice(0, MAX_FIELD_ERRORS).map((issue) => ({
    path: issue.path.map(String).join("."),
    location: locations[target],
    message: describe(issue),
  }));
}

export function validationHook(result: { success: boolean; error?: z.ZodError; target: Target }, _c: Context): void {
  if (result.success || !result.error) return;
  const errors = fieldErrors(result.error, result.target);
  const total = result.error.issues.length;
  const more = total > errors.length ? ` and ${total - errors.length} more` : "";
  const names = errors.map((e) => e.path || e.location).join(", ") + more;
  const init = { errors, ...(more ? { details: { errors_total: total } } : {}) };
  if (result.target === "json" || result.target === "form") {
    throw new ApiError(422, "VALIDATION_ERROR", `The request body is invalid: ${names}`, init);
  }
  throw new ApiError(400, "VALIDATION_ERROR", `Invalid ${result.target === "param" ? "path" : result.target} parameters: ${names}`, init);
}
