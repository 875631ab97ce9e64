// OpenAPI building blocks shared by every route: envelopes and error answers.
import { z } from "@hono/zod-openapi";

export const ErrorBody = z
  .object({
    success: z.literal(false),
    error_code: z.string().openapi({ example: "VALIDATION_ERROR" }),
    message: z.string(),
    errors: z
      .array(
        z.object({
          path: z.string().openapi({ example: "auth.cert.cert-data" }),
          location: z.enum(["path", "query", "header", "body"]),
          message: z.string(),
        }),
      )
      .optional(),
    details: z.record(z.string(), z.unknown()).optional().openapi({ description: "The SII's own text and codes, when it is the cause" }),
    request_id: z.string(),
    timestamp: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Error");

const errorDescriptions: Record<number, string> = {
  400: "Invalid parameters (`VALIDATION_ERROR`) or taxpayer credentials (`AUTH_ERROR`)",
  401: "API token absent or invalid (`HTTP_401`)",
  403: "Token lacks the scope (`INSUFFICIENT_SCOPE`), is blocked (`ACCOUNT_BLOCKED`), or the certificate lacks permission (`AUTH_ERROR`)",
  404: "Not found (`HTTP_404`)",
  409: "Idempotency-Key reused with another body (`IDEMPOTENCY_CONFLICT`) or still running (`IDEMPOTENCY_IN_PROGRESS`); the SII already has this file (`ALREADY_SUBMITTED`, the earlier track id in `details`)",
  413: "Body larger than the gateway accepts (`PAYLOAD_TOO_LARGE`)",
  415: "Body not sent as JSON (`HTTP_415`); `errors[]` names the `content-type` header",
  422: "Body of the wrong shape (`VALIDATION_ERROR`, `errors[]` names each field)",
  429: "Quota exceeded (`QUOTA_EXCEEDED`) or SII rate limit (`SII_RATE_LIMIT`); see `Retry-After`",
  500: "Unexpected error (`INTERNAL_ERROR`), with a request id",
  502: "The SII rejected the request or failed (`SII_GATEWAY_ERROR`); `details` carries its text",
  503: "The SII is in maintenance (`SII_UNAVAILABLE`); retry after `Retry-After` seconds",
};

export function errorResponses(statuses: readonly number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: errorDescriptions[status] ?? `Error ${status}`, content: { "application/json": { schema: ErrorBody } } },
    ]),
  );
}

export function envelope<T extends z.ZodType>(data: T, name?: string) {
  const schema = z.object({
    success: z.literal(true),
    message: z.string(),
    data,
    timestamp: z.string().openapi({ format: "date-time" }),
  });
  return name ? schema.openapi(name) : schema;
}

export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

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
