// PUT /api/v1/settings/proxy: replace the account's proxy configuration.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError, type FieldError } from "../../platform/errors.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { proxyUrlProblem, proxyView, readProxy, sealPassword, writeProxy } from "../../services/proxy-settings.ts";
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
      const input = c.req.valid("json");
      // The form and the rules between fields are the schema's; whether the address may be used
      // depends on the operator's policy (ALLOW_PRIVATE_PROXY): a business rule checked here, 400.
      const url = input.url ?? null;
      const problem = url === null ? null : proxyUrlProblem(url, c.get("deps").config.allowPrivateProxy);
      if (problem) {
        const errors: FieldError[] = [{ path: "url", location: "body", message: problem }];
        throw new ApiError(400, "VALIDATION_ERROR", "The request breaks a rule: url", { errors });
      }

      const { deps, account } = callerOf(c);
      const previous = await readProxy(deps, account());
      const password_box =
        input.password === undefined ? previous.password_box : input.password === null ? null : await sealPassword(deps, input.password);
      const stored = {
        enabled: input.enabled,
        url: url?.replace(/\/$/, "") ?? null,
        username: input.username ?? null,
        password_box,
        updated_at: c.get("deps").clock.now().toISOString(),
      };
      await writeProxy(deps, account(), stored);
      return ok(c, proxyView(stored), "Proxy settings saved");
    },
  );
}
