// zod failures to the error envelope, each field named in `errors[]`, the first MAX_FIELD_ERRORS
// of them: a body of a million bad fields must not get an answer of a million entries
// (`details.errors_total` gives the count).
//
// One kind of error, one answer:
// - 400 VALIDATION_ERROR: a path, query or header parameter of the wrong form, or a value that
//   passes the body's schema but breaks a business rule (the interface's list: document type or
//   quantity of a folio request, the folio range of an annulment, a malformed e-mail, a year out
//   of range; and any check made after the schema or marked with `businessRule`: amounts that do
//   not add up, a day outside the period, duplicates);
// - 422 VALIDATION_ERROR: a body that does not match the documented schema (JSON syntax, types,
//   required or unknown fields, a value outside its enum, range or length, fields that may not go
//   together).
// Every `errors[].path` is written by `fieldPath`: fields dotted, array indexes in brackets.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
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

/** The one notation of `errors[].path`: `documentos[0].dte`, `auth.cert.cert-data`. */
export function fieldPath(...segments: readonly (PropertyKey | readonly PropertyKey[])[]): string {
  let out = "";
  for (const segment of segments.flat()) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (String(segment) !== "") out += out ? `.${String(segment)}` : String(segment);
  }
  return out;
}

/** What a zod check passes to mark itself a business rule: its failure is a 400, not a 422. */
const BUSINESS_RULE = { businessRule: true } as const;

/**
 * Options for `.refine()` (or `z.custom`) whose failure is one of the interface's business rules:
 * `z.string().refine(isEmail, businessRule("must be an e-mail address"))`.
 */
export function businessRule(message: string): { message: string; params: typeof BUSINESS_RULE } {
  return { message, params: BUSINESS_RULE };
}

function isBusinessRule(issue: z.core.$ZodIssue): boolean {
  return issue.code === "custom" && (issue.params as { businessRule?: unknown } | undefined)?.businessRule === true;
}

/** Addresses the SII's forms take: no spaces or list separators, a dotted host name. */
const EMAIL = /^[^\s@<>"(),;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;
const EMAIL_MAX = 254;

/** Whether `value` (trimmed) is an e-mail address the gateway passes on. */
export function isEmailAddress(value: string): boolean {
  const email = value.trim();
  return email.length <= EMAIL_MAX && EMAIL.test(email);
}

/**
 * An e-mail address field. A malformed address is a business rule of the interface (400
 * VALIDATION_ERROR), wherever it sits; a value that is no string at all is a malformed body (422).
 */
export function emailAddress() {
  return z
    .string()
    .trim()
    .refine(isEmailAddress, businessRule("must be an e-mail address like name@example.cl"))
    .openapi({ format: "email", maxLength: EMAIL_MAX, example: "pagos@cliente.cl" });
}

/**
 * Where an error's path and message are cut: both may carry what the client sent (an unknown
 * key's name, a record's key), and an answer must not echo megabytes of it.
 */
export const MAX_ERROR_TEXT = 200;

export function clip(text: string): string {
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text;
}

/** The value the client sent at `path` (zod's issues do not carry it). */
function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describe(issue: z.core.$ZodIssue, data: unknown): string {
  if (issue.code === "invalid_type" && /received undefined/.test(issue.message)) return "is required";
  // zod says "Too big: expected string to have <=64 characters": the limit and the length sent say more.
  if (issue.code === "too_big" && issue.origin === "string") {
    const value = valueAt(data, issue.path);
    return `must be at most ${issue.maximum} characters${typeof value === "string" ? ` (got ${value.length})` : ""}`;
  }
  return clip(issue.message);
}

/** The first `MAX_FIELD_ERRORS` issues as field errors; `data` is what was validated. */
export function fieldErrors(error: z.ZodError, target: Target, data?: unknown): FieldError[] {
  return error.issues.slice(0, MAX_FIELD_ERRORS).map((issue) => ({
    path: clip(fieldPath(issue.path)),
    location: locations[target],
    message: describe(issue, data),
  }));
}

export function validationHook(result: { success: boolean; error?: z.ZodError; target: Target; data?: unknown }, _c: Context): void {
  if (result.success || !result.error) return;
  const errors = fieldErrors(result.error, result.target, result.data);
  const total = result.error.issues.length;
  const more = total > errors.length ? ` and ${total - errors.length} more` : "";
  const names = errors.map((e) => e.path || e.location).join(", ") + more;
  const init = { errors, ...(more ? { details: { errors_total: total } } : {}) };
  if (result.target === "json" || result.target === "form") {
    // Only a body whose every problem is a business rule is a 400: any malformed part makes it a 422.
    if (result.error.issues.every(isBusinessRule)) {
      throw new ApiError(400, "VALIDATION_ERROR", `The request breaks a rule: ${names}`, init);
    }
    throw new ApiError(422, "VALIDATION_ERROR", `The request body is invalid: ${names}`, init);
  }
  throw new ApiError(400, "VALIDATION_ERROR", `Invalid ${result.target === "param" ? "path" : result.target} parameters: ${names}`, init);
}
