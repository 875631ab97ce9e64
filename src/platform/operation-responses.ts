// The responses registration adds to a route's OpenAPI entry: the errors every authenticated
// operation can answer, those its kind adds, and the headers the platform sets on each answer.
import type { RouteConfig } from "@hono/zod-openapi";
import type { OperationSpec } from "./quota.ts";
import { errorResponses, headerRefs } from "./schemas.ts";

/** Statuses every authenticated operation can answer, whatever it does. */
const COMMON_ERRORS = [401, 403, 413, 429, 500] as const;

/** Answers given before the token is known (401, 413: the body limit runs first) carry no quota headers. */
const NO_QUOTA_HEADERS = new Set(["401", "413"]);
/**
 * Answers never stored under an Idempotency-Key: refused before the key is read (401, 403, 413,
 * 415, 422) or released for a real retry (429, 503; idempotency.ts).
 */
const NEVER_REPLAYED = new Set(["401", "403", "413", "415", "422", "429", "503"]);

/** The route's responses with the platform's errors and headers; `dryRun`: the operation offers a preview. */
export function operationResponses(route: RouteConfig, spec: OperationSpec, dryRun: boolean): RouteConfig["responses"] {
  // A JSON body can be refused for its Content-Type before its fields are read; `dry_run` is
  // refused (400) where the operation has no preview.
  // An operation that reaches the SII (it documents 502) also meets its maintenance (503).
  const reachesSii = route.responses[502] !== undefined;
  const extraErrors = [
    ...(dryRun ? [] : [400]),
    ...(spec.changesState ? [409] : []),
    ...(route.request?.body ? [415] : []),
    ...(reachesSii ? [503] : []),
  ];
  return declaredHeaders({ ...errorResponses([...COMMON_ERRORS, ...extraErrors]), ...route.responses }, spec.changesState);
}

/** Each response with the headers the platform adds to it (X-Request-Id is added to every response by routes/openapi.ts). */
function declaredHeaders(responses: Record<string, object>, write: boolean): RouteConfig["responses"] {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const names = [
        ...(NO_QUOTA_HEADERS.has(status)
          ? []
          : (["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Quota-Units"] as const)),
        ...(write && !NEVER_REPLAYED.has(status) ? (["Idempotent-Replayed"] as const) : []),
      ];
      const own = (response as { headers?: Record<string, unknown> }).headers;
      return [status, { ...response, headers: { ...headerRefs(names), ...own } }];
    }),
  ) as RouteConfig["responses"];
}
