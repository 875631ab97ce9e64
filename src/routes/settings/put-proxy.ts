// PUT /api/v1/settings/proxy: replace the account's proxy configuration.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { replaceProxySettings } from "../../services/settings.ts";
import { ProxySettingsEnvelope, ProxySettingsInput } from "./schema.ts";

export function registerSettingsPutProxy(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "put",
      path: "/api/v1/settings/proxy",
      tags: ["Settings"],
      summary: "Set the proxy configuration for SII traffic",
      description:
        "Replaces this account's outbound proxy: when enabled, every SII call of the account's tokens goes through it (an HTTP CONNECT proxy). The password is sealed at rest and never returned. Needs the `settings:write` scope.",
      request: { body: jsonBody(ProxySettingsInput) },
      responses: {
        200: {
          ...jsonContent(ProxySettingsEnvelope, "The stored configuration"),
          links: {
            Test: { operationId: "post_settings_proxy_test", description: "Reach the SII through the proxy just stored" },
          },
        },
        ...errorResponses([400, 422]),
      },
    }),
    { scope: "settings:write", weight: 1 },
    async (c) => {
      return ok(c, await replaceProxySettings(callerOf(c), c.req.valid("json")), "Proxy settings saved");
    },
  );
}
