// GET /openapi.json (no auth): OpenAPI 3.1 generated from the route schemas.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../platform/context.ts";
import { headerRefs, IDEMPOTENCY_KEY_PARAMETER, RESPONSE_HEADERS, type ResponseHeaderName } from "../platform/schemas.ts";

export const API_INFO = {
  title: "SII gateway",
  version: "1.0.0",
  description:
    "HTTP/JSON gateway to Chile's tax authority (SII). Every operation takes an API token in `X-API-Token`. " +
    "In sandbox mode every operation answers from the built-in SII simulator.",
};

type Document = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;
type Operation = { responses?: Record<string, { headers?: Record<string, unknown> }> };

export function openApiDocument(app: OpenAPIHono<AppEnv>): Document {
  const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: API_INFO, servers: [{ url: "/" }] });
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, Operation>)) {
      withRequestId(operation);
    }
  }
  return doc;
}

/** Every answer carries X-Request-Id (platform/request.ts), whichever route gave it. */
function withRequestId(operation: Operation): void {
  for (const response of Object.values(operation.responses ?? {})) {
    response.headers = { ...headerRefs(["X-Request-Id"]), ...response.headers };
  }
}

export function registerOpenApi(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiToken", {
    type: "apiKey",
    in: "header",
    name: "X-API-Token",
    description: "API token. `Authorization: Bearer <token>` and `Authorization: Token <token>` are accepted too.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminToken", {
    type: "http",
    scheme: "bearer",
    description: "The operator's ADMIN_TOKEN secret",
  });
  for (const [name, header] of Object.entries(RESPONSE_HEADERS)) {
    app.openAPIRegistry.registerComponent("headers", name as ResponseHeaderName, header as never);
  }
  app.openAPIRegistry.registerComponent("parameters", IDEMPOTENCY_KEY_PARAMETER.name, IDEMPOTENCY_KEY_PARAMETER as never);
  let cached: string | undefined;
  app.get("/openapi.json", (c) => {
    cached ??= JSON.stringify(openApiDocument(app));
    return c.body(cached, 200, { "content-type": "application/json; charset=utf-8" });
  });
}
