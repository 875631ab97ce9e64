// The gateway's one error type: what went wrong, as an HTTP status, an error code of the
// interface and its details. The SII clients (sii/) throw it and platform/ answers it, so it sits
// below both.
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type ErrorCode =
  | "AUTH_ERROR"
  | "VALIDATION_ERROR"
  | "HTTP_401"
  | "HTTP_404"
  | "HTTP_405"
  | "HTTP_415"
  | "INSUFFICIENT_SCOPE"
  | "ACCOUNT_BLOCKED"
  | "QUOTA_EXCEEDED"
  | "SII_RATE_LIMIT"
  | "SII_GATEWAY_ERROR"
  | "SII_FORMAT_CHANGED"
  | "SII_UNAVAILABLE"
  | "PAYLOAD_TOO_LARGE"
  | "IDEMPOTENCY_CONFLICT"
  | "IDEMPOTENCY_IN_PROGRESS"
  | "ALREADY_SUBMITTED"
  | "FOLIOS_OVERLAP"
  | "FOLIOS_EXHAUSTED"
  | "FOLIO_UNAVAILABLE"
  | "JOBS_LIMIT"
  | "JOB_STATE"
  | "WEBHOOKS_LIMIT"
  | "WEBHOOK_STATE"
  | "JOB_RESULT_GONE"
  | "NOT_IMPLEMENTED"
  | "INTERNAL_ERROR";

export interface FieldError {
  /** Dotted path of the offending field, e.g. `auth.cert.cert-data` or `ambiente`. */
  path: string;
  /** Where the field was: path, query, header or body. */
  location: "path" | "query" | "header" | "body";
  message: string;
}

export interface ApiErrorInit {
  errors?: FieldError[];
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ErrorCode;
  readonly init: ApiErrorInit;

  constructor(status: ContentfulStatusCode, code: ErrorCode, message: string, init: ApiErrorInit = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.init = init;
  }
}
