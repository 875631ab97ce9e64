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
import { isJsonMediaType } from "./json-body.ts";

import { fieldNamed, type UnknownField, unknownFields } from "./unknown-fields.ts";

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
    .meta({ format: "email", maxLength: EMAIL_MAX, example: "pagos@cliente.cl" });
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

/** How a value's kind is named in a message ("must be a list (got a string)"). */
const KINDS: Record<string, string> = {
  object: "an object",
  array: "a list",
  number: "a number",
  int: "a whole number",
  string: "a string",
  boolean: "true or false",
  null: "null",
};

function kindOf(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return KINDS[typeof value] ?? typeof value;
}

/** `(got …)` for a value sent: its size or its number, never a string's content (it may be a secret). */
function got(value: unknown): string {
  if (typeof value === "number") return ` (got ${value})`;
  if (Array.isArray(value)) return ` (got ${value.length})`;
  if (typeof value === "string") return ` (got ${value.length})`;
  return "";
}

/** zod's own wording of a bound ("Too big: expected …"): replaced by one that names the limit. */
const ZOD_BOUND = /^Too (big|small):/;

function describeBound(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, value: unknown): string {
  const big = issue.code === "too_big";
  const limit = Number(big ? issue.maximum : (issue as z.core.$ZodIssueTooSmall).minimum);
  const inclusive = issue.inclusive !== false;
  const bound = big ? (inclusive ? "at most" : "less than") : inclusive ? "at least" : "more than";
  // A string's own words for its type ("is required") would hide its length: a long one is always measured.
  const tooLong = big && issue.origin === "string";
  if (!ZOD_BOUND.test(issue.message) && !tooLong) {
    // The field's own words (`must be from 1 to …`) and the value, where it is a number or a list.
    return typeof value === "number" || Array.isArray(value) ? clip(`${issue.message}${got(value)}`) : clip(issue.message);
  }
  if (issue.origin === "array" || issue.origin === "set") return `must have ${bound} ${limit} items${got(value)}`;
  if (issue.origin === "string") return `must be ${bound} ${limit} characters${got(value)}`;
  return `must be ${bound} ${limit}${got(value)}`;
}

/**
 * A union's failure, resolved: zod says "Invalid input" at the union and keeps each alternative's
 * issues. An alternative whose kind matched what was sent (a list for the list alternative) says
 * why that value fails (its issues, at their own paths); when none matched, the union says which
 * kinds it takes.
 */
function resolveUnions(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const out: z.core.$ZodIssue[] = [];
  for (const issue of issues) {
    // A union with a message of its own (the vehicle search's "Debe especificar el tipo…") keeps it.
    if (issue.code !== "invalid_union" || issue.errors.length === 0 || !/^Invalid input/.test(issue.message)) {
      out.push(issue);
      continue;
    }
    const wrongKind = (branch: readonly z.core.$ZodIssue[]) =>
      branch.length > 0 && branch.every((i) => i.code === "invalid_type" && i.path.length === 0);
    const matched = issue.errors.find((branch) => !wrongKind(branch));
    if (matched) {
      out.push(...resolveUnions(matched.map((i) => ({ ...i, path: [...issue.path, ...i.path] }))));
      continue;
    }
    const kinds = [...new Set(issue.errors.flat().map((i) => (i.code === "invalid_type" ? (KINDS[i.expected] ?? i.expected) : "")))];
    out.push({ ...issue, message: `must be ${kinds.filter(Boolean).join(" or ")}` });
  }
  return out;
}

function describe(issue: z.core.$ZodIssue, data: unknown): string {
  const value = valueAt(data, issue.path);
  if (issue.code === "invalid_type") {
    if (/received undefined/.test(issue.message)) return "is required";
    const sent = value === undefined ? "" : ` (got ${kindOf(value)})`;
    if (/^Invalid input/.test(issue.message)) return `must be ${KINDS[issue.expected] ?? issue.expected}${sent}`;
    return clip(issue.message);
  }
  // zod says "Too big: expected string to have <=64 characters": the limit and what was sent say more.
  if (issue.code === "too_big" || issue.code === "too_small") return describeBound(issue, value);
  if (issue.code === "invalid_value") {
    const listed = issue.values.map((v) => String(v)).join(", ");
    const base = /^Invalid (option|input)/.test(issue.message) ? `must be one of ${listed}` : issue.message;
    // An option's name is short: a longer string is not echoed, only said to be none of them.
    const short = (typeof value === "string" && value.length <= 40) || typeof value === "number";
    const sent = short ? ` (got ${JSON.stringify(value)})` : "";
    return clip(`${base}${sent}`);
  }
  if (issue.code === "invalid_union") return clip(`${issue.message} (got ${kindOf(value)})`);
  return clip(issue.message);
}

export function validationHook(result: { success: boolean; error?: z.ZodError; target: Target; data?: unknown }, _c: Context): void {
  if (result.success || !result.error) return;
  refuse(result.target, resolveUnions(result.error.issues), result.data, []);
}

/**
 * The hook of an operation whose body is read by `schema`: the default hook's answers, and a body
 * field the schema does not know refused (422, each named; unknown-fields.ts), also when the rest
 * is valid. What was sent is read where the validator read it (the request's cached JSON).
 */
export function bodyHook(schema: z.core.$ZodType) {
  return async (result: { success: boolean; error?: z.ZodError; target: Target; data?: unknown }, c: Context): Promise<void> => {
    if (result.target !== "json") return validationHook(result, c);
    // Without a JSON content type the validator reads nothing and validates `{}` (Hono's json target): then
    // nothing was sent, and there is no body to read again (reading it would throw, a 500).
    const sent = result.success ? (isJsonMediaType(c.req.header("content-type")) ? await c.req.json() : {}) : result.data;
    const unknown = unknownFields(schema, sent, MAX_FIELD_ERRORS).map((field) => unknownFieldError(schema, field));
    if (result.success && unknown.length === 0) return;
    // zod's strict objects name their unknown keys too, at the object: the walk names each one.
    const issues = resolveUnions(result.error?.issues ?? []).filter((i) => unknown.length === 0 || i.code !== "unrecognized_keys");
    refuse("json", issues, sent, unknown);
  };
}

function unknownFieldError(schema: z.core.$ZodType, field: UnknownField): FieldError {
  const parent = fieldPath(field.path.slice(0, -1));
  const named = fieldNamed(schema, field.key);
  if (field.hint) return { path: clip(fieldPath(field.path)), location: "body", message: clip(field.hint) };
  const hint = named
    ? `; did you mean ${named}?`
    : field.known.length > 0 && field.known.length <= 8
      ? `; ${parent || "the body"} takes ${field.known.join(", ")}`
      : "";
  return { path: clip(fieldPath(field.path)), location: "body", message: clip(`is not a field of this operation${hint}`) };
}

function refuse(target: Target, issues: z.core.$ZodIssue[], data: unknown, unknown: FieldError[]): never {
  const all = [
    ...unknown,
    ...issues.map((issue) => ({ path: clip(fieldPath(issue.path)), location: locations[target], message: describe(issue, data) })),
  ];
  const errors = all.slice(0, MAX_FIELD_ERRORS);
  const total = all.length;
  const more = total > errors.length ? ` and ${total - errors.length} more` : "";
  const names = errors.map((e) => e.path || e.location).join(", ") + more;
  const init = { errors, ...(more ? { details: { errors_total: total } } : {}) };
  if (target === "json" || target === "form") {
    if (issues.length === 0)
      throw new ApiError(422, "VALIDATION_ERROR", `The request body has fields this operation does not take: ${names}`, init);
    // Only a body whose every problem is a business rule is a 400: any malformed part makes it a 422.
    if (unknown.length === 0 && issues.every(isBusinessRule)) {
      throw new ApiError(400, "VALIDATION_ERROR", `The request breaks a rule: ${names}`, init);
    }
    throw new ApiError(422, "VALIDATION_ERROR", `The request body is invalid: ${names}`, init);
  }
  throw new ApiError(400, "VALIDATION_ERROR", `Invalid ${target === "param" ? "path" : target} parameters: ${names}`, init);
}
