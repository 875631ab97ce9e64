// GET /openapi.json (no auth): OpenAPI 3.1 generated from the route schemas.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../platform/context.ts";

export const API_INFO = {
  title: "SII gateway",
  version: "1.0.0",
  description:
    "HTTP/JSON gateway to Chile's tax authority (SII). Every operation takes an API token in `X-API-Token`. " +
    "In sandbox mode every operation answers from the built-in SII simulator.",
};

export function openApiDocument(app: OpenAPIHono<AppEnv>) {
  return app.getOpenAPI31Document({ openapi: "3.1.0", info: API_INFO, servers: [{ url: "/" }] });
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
  let cached: string | undefined;
  app.get("/openapi.json", (c) => {
    cached ??= JSON.stringify(openApiDocument(app));
    return c.body(cached, 200, { "content-type": "application/json; charset=utf-8" });
  });
}
