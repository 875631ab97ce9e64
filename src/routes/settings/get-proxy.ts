// GET /api/v1/settings/proxy: the account's proxy configuration, password never shown.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { jsonContent } from "../../platform/schemas.ts";
import { proxySettings } from "../../services/settings.ts";
import { ProxySettingsEnvelope } from "./schema.ts";

export function registerSettingsGetProxy(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/settings/proxy",
      tags: ["Settings"],
      summary: "Get the proxy configuration for SII traffic",
      description:
        "This account's outbound proxy toward the SII (shared by all its tokens); the password is never returned, only whether one is stored. Needs the `settings:read` scope.",
      responses: { 200: jsonContent(ProxySettingsEnvelope, "The configuration (defaults when never set)") },
    }),
    { scope: "settings:read", weight: 1 },
    async (c) => {
      return ok(c, await proxySettings(callerOf(c)));
    },
  );
}
