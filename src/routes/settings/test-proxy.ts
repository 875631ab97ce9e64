// POST /api/v1/settings/proxy/test: reach the SII host of the chosen ambiente through the
// account's proxy and report what happened. It never connects anywhere the caller chooses; every
// failure before the SII answered is one message (src/services/settings.ts says why).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { PROXY_NOT_ALLOWED } from "../../lib/address-policy.ts";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { Ambiente } from "../../platform/params.ts";
import { envelope, errorResponses, jsonContent } from "../../platform/schemas.ts";
import { testProxy, UNREACHED } from "../../services/settings.ts";

const Query = z.object({ ambiente: Ambiente });

// The test's failure rule, read by its tests where the route is.
export { failureOf, UNREACHED } from "../../services/settings.ts";

export const ProxyTest = envelope(
  z.object({
    reachable: z.boolean(),
    target: z.string().register(z.globalRegistry, { example: "https://palena.sii.cl" }),
    proxy: z.string().register(z.globalRegistry, { example: "http://proxy.example.cl:3128" }),
    latency_ms: z
      .number()
      .nullable()
      .register(z.globalRegistry, { description: "How long the SII took to answer; null when it was not reached" }),
    sii_status: z.number().nullable().register(z.globalRegistry, { description: "HTTP status the SII answered through the proxy" }),
    error: z
      .string()
      .nullable()
      .register(z.globalRegistry, {
        description: `What failed: \`${UNREACHED}\` for every failure before the SII answered (a closed, refused or filtered port, a service that is no proxy, a timeout: one message, so the test cannot scan ports), \`${PROXY_NOT_ALLOWED}<class>\` when the address policy refuses the proxy, or the SII's own failure`,
        example: UNREACHED,
      }),
    upstream: z
      .enum(["sandbox", "live"])
      .register(z.globalRegistry, { description: "In sandbox mode the simulated SII is reached in-process, without the proxy" }),
  }),
);

export function registerSettingsTestProxy(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/settings/proxy/test",
      tags: ["Settings"],
      summary: "Reach the SII through the account's proxy",
      description:
        "Fetches the SII's seed service description through the enabled proxy (15 s timeout) and reports whether it answered, its status and the latency; a failure is a 200 with `reachable: false` and the reason. Every failure before the SII answered (closed, refused or filtered port, no proxy there, timeout) gives the same answer, so the test tells nothing about the ports of the proxy's host. 400 when the account has no enabled proxy. Needs the `settings:write` scope.",
      request: { query: Query },
      responses: { 200: jsonContent(ProxyTest, "What the test found (also when the SII was not reached)"), ...errorResponses([400]) },
    }),
    { scope: "settings:write", weight: 1 },
    async (c) => {
      const { ambiente } = c.req.valid("query");
      return ok(c, await testProxy(callerOf(c), ambiente));
    },
  );
}
