// GET /healthz (no API token, no quota): the gateway's own state for load balancers and uptime
// checks; with `?deep=1` and the operator's ADMIN_TOKEN, whether each SII host answers through
// the configured transport. A host that fails is reported, never turned into a 5xx.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { envelope, errorResponses, jsonContent } from "../../platform/schemas.ts";
import { gatewayHealth } from "../../services/health.ts";
import { API_INFO } from "../openapi-info.ts";

const Query = z.object({
  deep: z.enum(["0", "1"]).optional().register(z.globalRegistry, {
    description: "`1`: also reach every SII host (needs `Authorization: Bearer <ADMIN_TOKEN>`); `0` or absent: the gateway's own state",
  }),
});

const HostState = z.object({
  host: z.string().register(z.globalRegistry, { example: "palena.sii.cl" }),
  reachable: z.boolean().register(z.globalRegistry, { description: "An HTTP answer arrived within the time limit (any status)" }),
  status: z.number().int().nullable(),
  latency_ms: z.number().int(),
  error: z.string().nullable(),
});

export const Health = envelope(
  z.object({
    status: z
      .enum(["ok", "degraded"])
      .register(z.globalRegistry, { description: "`degraded`: the deep check found an SII host it could not reach" }),
    mode: z.enum(["sandbox", "live"]),
    version: z
      .string()
      .register(z.globalRegistry, { description: "The release, as `info.version` of the OpenAPI document", example: API_INFO.version }),
    sii: z.array(HostState).optional().register(z.globalRegistry, { description: "With `deep=1` only" }),
  }),
  "Health",
);

export function registerHealthz(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/healthz",
      operationId: "healthz",
      tags: ["Health"],
      summary: "The gateway's state; with deep=1 (admin) the SII hosts' reachability",
      description:
        "For load balancers and uptime checks: no API token, no quota, never cached. `deep=1` with `Authorization: Bearer <ADMIN_TOKEN>` also asks every SII host through the configured transport (5 s per host, all at once); an unreachable host makes `status` `degraded`, never a 5xx.",
      request: { query: Query },
      responses: { 200: jsonContent(Health, "The gateway answers"), ...errorResponses([400, 401]) },
    }),
    async (c) => {
      c.header("Cache-Control", "no-store");
      // The admin token as the request gives it; the service judges it.
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];
      return ok(c, await gatewayHealth(callerOf(c), c.req.valid("query").deep === "1", bearer));
    },
  );
}
