// OpenAPI building blocks shared by every route: envelopes and error answers.
import { z } from "@hono/zod-openapi";
import type { ErrorCode } from "./errors.ts";

/** Every `error_code` the gateway answers; the type check below keeps it equal to `ErrorCode`. */
export const ERROR_CODES = [
  "AUTH_ERROR",
  "VALIDATION_ERROR",
  "HTTP_401",
  "HTTP_404",
  "HTTP_405",
  "HTTP_415",
  "INSUFFICIENT_SCOPE",
  "ACCOUNT_BLOCKED",
  "QUOTA_EXCEEDED",
  "SII_RATE_LIMIT",
  "SII_GATEWAY_ERROR",
  "SII_FORMAT_CHANGED",
  "SII_UNAVAILABLE",
  "PAYLOAD_TOO_LARGE",
  "IDEMPOTENCY_CONFLICT",
  "IDEMPOTENCY_IN_PROGRESS",
  "ALREADY_SUBMITTED",
  "FOLIOS_OVERLAP",
  "FOLIOS_EXHAUSTED",
  "FOLIO_UNAVAILABLE",
  "JOBS_LIMIT",
  "JOB_STATE",
  "WEBHOOKS_LIMIT",
  "WEBHOOK_STATE",
  "JOB_RESULT_GONE",
  "NOT_IMPLEMENTED",
  "INTERNAL_ERROR",
] as const satisfies readonly ErrorCode[];
// A code added to ErrorCode and not here fails the type check.
const everyCodeListed: Exclude<ErrorCode, (typeof ERROR_CODES)[number]> extends never ? true : never = true;
void everyCodeListed;

export const ErrorBody = z
  .object({
    success: z.literal(false),
    error_code: z
      .enum(ERROR_CODES)
      .register(z.globalRegistry, { description: "What went wrong; the statuses below say which codes each status carries" }),
    message: z.string(),
    errors: z
      .array(
        z.object({
          path: z.string().register(z.globalRegistry, { example: "auth.cert.cert-data" }),
          location: z.enum(["path", "query", "header", "body"]),
          message: z.string(),
        }),
      )
      .optional(),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .register(z.globalRegistry, { description: "The SII's own text and codes, when it is the cause" }),
    request_id: z.string(),
    timestamp: z.string().register(z.globalRegistry, { format: "date-time" }),
  })
  .openapi("Error");

const errorDescriptions: Record<number, string> = {
  400: "A path, query or header parameter of the wrong form, or a value that passes the request schema but breaks a business rule (`VALIDATION_ERROR`, `errors[]` names each field: the document type or quantity of a folio request, the folio range of an annulment, a malformed e-mail, a year out of range, amounts that do not add up, a day outside the period, a duplicate), or taxpayer credentials refused (`AUTH_ERROR`)",
  401: "API token absent or invalid (`HTTP_401`)",
  403: "Token lacks the scope (`INSUFFICIENT_SCOPE`), is blocked (`ACCOUNT_BLOCKED`), or the certificate lacks permission (`AUTH_ERROR`)",
  404: "Not found (`HTTP_404`)",
  405: "Method not served on this path (`HTTP_405`); `Allow` lists the methods that are",
  409: "Idempotency-Key reused with another body, or its stored answer in a media type the repeat's `Accept` refuses (`IDEMPOTENCY_CONFLICT`), or still running, or taken over by a retry once this attempt ran past its lease (`IDEMPOTENCY_IN_PROGRESS`); the SII already has this file (`ALREADY_SUBMITTED`, the earlier track id in `details`); a CAF whose range shares folios with one the account already holds (`FOLIOS_OVERLAP`, the range in `details`); no free folio left in the account's ledger for the issuer and type (`FOLIOS_EXHAUSTED`, both in `details`); a document's `Folio` used, annulled, expired or outside the ledger's ranges (`FOLIO_UNAVAILABLE`, the folio in `details`); the account already has its most live jobs (`JOBS_LIMIT`); a job cancelled or resumed from a state that does not allow it (`JOB_STATE`, its state in `details`); the account already has its 16 webhook endpoints (`WEBHOOKS_LIMIT`); a test or redelivery to a disabled endpoint, or to one with 100 events already waiting (`WEBHOOK_STATE`)",
  410: "A finished RCV download's documents are kept 24 hours after they were fetched, then erased (`JOB_RESULT_GONE`, until when in `details`)",
  413: "Body larger than the gateway accepts: `MAX_BODY_BYTES`, by default 32 MiB on Node and Lambda and 10 MiB on Workers (`PAYLOAD_TOO_LARGE`)",
  415: "Body not sent as JSON (`HTTP_415`); `errors[]` names the `content-type` header",
  422: "A body that does not match this operation's request schema: malformed JSON, a wrong type, a missing or unknown field, a value outside its enum, range or length, fields that may not go together (`VALIDATION_ERROR`, `errors[]` names each field)",
  429: "Quota exceeded, or the account's live Idempotency-Key answers at their limit (`QUOTA_EXCEEDED`; over the plan, `details.daily` and `details.monthly` are the windows as `GET /api/v1/usage` shows them, `resets_at` in ISO 8601), or SII rate limit (`SII_RATE_LIMIT`); see `Retry-After`",
  500: "Unexpected error (`INTERNAL_ERROR`), with a request id",
  502: "The SII rejected the request or failed (`SII_GATEWAY_ERROR`); `details` carries its text. `SII_FORMAT_CHANGED`: the SII answered in a shape the gateway does not read (a column it looks for by its header is missing, or the data breaks what it promises: totals, counts, ranges); `details.service` and `details.check` say which, and nothing was answered from it",
  503: "The SII is in maintenance (`SII_UNAVAILABLE`); retry after `Retry-After` seconds",
};

const REQUEST_ID = "req_3f2b9c0d1e4a5b6c7d8e9f01";
const AT = "2026-01-15T12:00:00.000Z";

/** One body per status, with the code that status really carries (the gateway's own messages). */
const errorExamples: Record<number, Record<string, unknown>> = {
  400: {
    error_code: "VALIDATION_ERROR",
    message: "Invalid path parameters: rut",
    errors: [{ path: "rut", location: "path", message: "RUT check digit does not match" }],
  },
  401: { error_code: "HTTP_401", message: "API token missing: send it in the X-API-Token header" },
  403: {
    error_code: "INSUFFICIENT_SCOPE",
    message: "This operation needs the scope sii:write",
    details: { required_scope: "sii:write", token_scopes: ["sii:read"] },
  },
  404: { error_code: "HTTP_404", message: "No token tok_0123456789abcdef" },
  405: { error_code: "HTTP_405", message: "Method GET is not allowed here; use POST" },
  409: { error_code: "IDEMPOTENCY_CONFLICT", message: "This Idempotency-Key was already used with a different request" },
  410: { error_code: "JOB_RESULT_GONE", message: "The job's documents were kept until 2026-01-16T12:00:00.000Z and are erased" },
  413: { error_code: "PAYLOAD_TOO_LARGE", message: "The request body is larger than 33554432 bytes" },
  415: {
    error_code: "HTTP_415",
    message: "The request body must be JSON: send Content-Type: application/json",
    errors: [{ path: "content-type", location: "header", message: "must be application/json" }],
  },
  422: {
    error_code: "VALIDATION_ERROR",
    message: "The request body is invalid: auth.pass.clave",
    errors: [{ path: "auth.pass.clave", location: "body", message: "is required" }],
  },
  429: {
    error_code: "QUOTA_EXCEEDED",
    message: "Quota exceeded: this call needs 1 units",
    details: {
      units_needed: 1,
      daily: { used: 1000, limit: 1000, remaining: 0, resets_at: "2026-01-16T00:00:00.000Z" },
      monthly: { used: 5000, limit: 20000, remaining: 15000, resets_at: "2026-02-01T00:00:00.000Z" },
    },
  },
  500: {
    error_code: "INTERNAL_ERROR",
    message: "Internal error; quote the request_id when reporting it",
    details: { request_id: REQUEST_ID },
  },
  501: {
    error_code: "NOT_IMPLEMENTED",
    message:
      "This call needs a TLS client certificate or a proxy, which Workers cannot do: set EGRESS_URL and EGRESS_SECRET to a Node egress",
    details: { service: "cert_login", setting: "EGRESS_URL" },
  },
  502: {
    error_code: "SII_GATEWAY_ERROR",
    message: "The SII failed (HTTP 500)",
    details: { service: "rcv_resumen", sii_status: 500, sii_message: "Error interno del servidor" },
  },
  503: {
    error_code: "SII_UNAVAILABLE",
    message: "The SII is not answering requests right now (maintenance); retry in about 5 minutes",
    details: { service: "token", sii_status: 503, sii_message: "Servicio en mantencion" },
  },
};

/** The example body of an error status, as the gateway answers it. */
export function errorExample(status: number): Record<string, unknown> {
  const example = errorExamples[status] ?? { error_code: "INTERNAL_ERROR", message: `Error ${status}` };
  return { success: false, ...example, request_id: REQUEST_ID, timestamp: AT };
}

/**
 * The headers the gateway sends, declared once under `components.headers` (registered by
 * routes/openapi.ts) and referenced from each response. Names as request.ts, rate-headers.ts,
 * operation.ts and idempotency.ts send them.
 */
export const RESPONSE_HEADERS = {
  "X-Request-Id": {
    description: "This request's id (the caller's `X-Request-Id` when well formed); also in error bodies as `request_id`",
    required: true,
    schema: { type: "string", example: "req_3f2b9c0d1e4a5b6c7d8e9f01" },
  },
  "X-RateLimit-Limit": {
    description: "Units of the binding quota window (the daily or monthly one with fewer units left)",
    required: true,
    schema: { type: "integer", example: 1000 },
  },
  "X-RateLimit-Remaining": {
    description: "Units left in that window",
    required: true,
    schema: { type: "integer", example: 998 },
  },
  "X-RateLimit-Reset": {
    description: "When that window resets, in Unix seconds",
    required: true,
    schema: { type: "integer", example: 1768521600 },
  },
  "X-Quota-Units": {
    description:
      "Units this call consumed: 0 when it was refused before reaching the SII, answered 500 or 503, a dry_run or an idempotent replay; a refusal after the SII was called is charged",
    required: true,
    schema: { type: "integer", example: 1 },
  },
  "Retry-After": {
    description: "Seconds to wait before retrying",
    required: true,
    schema: { type: "integer", example: 300 },
  },
  "X-Folios-Remaining": {
    description:
      "On `documentos/generar` answers that took folios from the account's ledger: the folios still available to the issuer for the type used (the fewest of them when the request used several types), counting only ranges not expired",
    required: false,
    schema: { type: "integer", example: 49 },
  },
  "X-Folios-Low": {
    description:
      "On `documentos/generar` answers that took folios from the account's ledger: `true` when a type used has as many folios left as the threshold the account set for it (`PUT /api/v1/platform/dte/folios/{emisor}/{dte}/umbral`) or fewer; absent otherwise",
    required: false,
    schema: { type: "string", enum: ["true"] },
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored answer of an earlier call with the same `Idempotency-Key`",
    required: false,
    schema: { type: "string", enum: ["true"] },
  },
} as const;

/** The longest `Idempotency-Key` the gateway takes (idempotency.ts). */
export const IDEMPOTENCY_KEY_MAX = 255;
/**
 * Live answers one account may hold. Only answers that reached the SII or were charged are kept,
 * and a default plan (1000 units a day, a write weighs 5) pays for 200 writes a day per token:
 * 5000 leaves room for 25 such tokens on one account, yet bounds what an account can make the
 * store hold (a refused-request flood once stored 12 000 answers in 50 s).
 */
export const IDEMPOTENCY_RECORDS_MAX = 5000;

/** The request header of every write operation (components.parameters, registered by routes/openapi.ts). */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Any unique string (a fresh UUID per call, say): a repeat with the same key and body within 24 h gets the first call's answer " +
    "(`Idempotent-Replayed: true`) instead of running again; the same key with another body is a 409 `IDEMPOTENCY_CONFLICT`, " +
    "and so is a repeat whose `Accept` does not take the stored answer's media type. Only answers that reached the SII or " +
    `were charged are kept (a refusal the gateway gave on its own frees the key); an account holds at most ${IDEMPOTENCY_RECORDS_MAX} ` +
    "live answers, and past that a new key is a 429 `QUOTA_EXCEEDED` with `Retry-After`",
  schema: {
    type: "string",
    minLength: 1,
    maxLength: IDEMPOTENCY_KEY_MAX,
    pattern: "^[!-~]+$",
    // No example: one value shared by every write made "Try it out" answer a second write with a 409.
  },
} as const;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/** `$ref`s to the declared headers, for a response's `headers`. */
export function headerRefs(names: readonly ResponseHeaderName[]): Record<string, { $ref: string }> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** A 409 carries it only with `IDEMPOTENCY_IN_PROGRESS`. */
const IN_PROGRESS_RETRY = {
  description: "With `IDEMPOTENCY_IN_PROGRESS` only: seconds to wait before retrying",
  required: false,
  schema: { type: "integer", example: 5 },
};

/** Statuses whose answers carry `Retry-After`. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

export function errorResponses(statuses: readonly number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: errorDescriptions[status] ?? `Error ${status}`,
        ...(RETRY_AFTER_STATUSES.has(status) ? { headers: headerRefs(["Retry-After"]) } : {}),
        ...(status === 409 ? { headers: { "Retry-After": IN_PROGRESS_RETRY } } : {}),
        content: { "application/json": { schema: ErrorBody, example: errorExample(status) } },
      },
    ]),
  );
}

/** The fields every success envelope shares: built once, not per operation (zod schemas are immutable). */
const ENVELOPE_FIELDS = {
  success: z.literal(true),
  message: z.string(),
  timestamp: z.string().register(z.globalRegistry, { format: "date-time" }),
};

export function envelope<T extends z.ZodType>(data: T, name?: string) {
  const { success, message, timestamp } = ENVELOPE_FIELDS;
  const schema = z.object({ success, message, data, timestamp });
  return name ? schema.openapi(name) : schema;
}

export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/**
 * The schema of an answer given as bytes (a PDF, ESC/POS, the SII's ISO-8859-1 CSV or page) beside its
 * JSON form: `format: binary` is what openapi-python-client reads as a `File` and what tells an
 * openapi-fetch caller to ask for `parseAs: "blob"`/`"arrayBuffer"` (fetch's `text()` reads UTF-8 only,
 * so ISO-8859-1 text is bytes to a client too). Which form comes back is the request's `Accept`.
 */
export const BYTES = { type: "string", format: "binary" } as const;

/** A required JSON request body. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

/** Path parameters: each schema is documented as the path parameter named by its key. */
export function pathParams<T extends Record<string, z.ZodType>>(shape: T) {
  return z.object(
    Object.fromEntries(Object.entries(shape).map(([name, schema]) => [name, schema.openapi({ param: { name, in: "path" } })])) as T,
  );
}
