// GET /api/v1/webhooks/endpoints: the account's endpoints, oldest first, with what each has delivered.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { listEndpoints } from "../../services/webhook-endpoints.ts";
import { EndpointsPage } from "./schema.ts";

export function registerWebhooksList(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/webhooks/endpoints",
      tags: ["Webhooks"],
      summary: "List the webhook endpoints",
      description: "Every endpoint of the account (at most 16), never their secrets. Needs the `settings:read` scope.",
      responses: { 200: jsonContent(EndpointsPage, "The endpoints"), ...errorResponses([]) },
    }),
    { scope: "settings:read", weight: 1 },
    async (c) => ok(c, await listEndpoints(callerOf(c))),
  );
}
