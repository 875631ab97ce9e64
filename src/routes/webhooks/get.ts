// GET /api/v1/webhooks/endpoints/{id}: one endpoint, with its last attempt and what waits for another.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { getEndpoint } from "../../services/webhook-endpoints.ts";
import { EndpointEnvelope, EndpointParams } from "./schema.ts";

export function registerWebhooksGet(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/webhooks/endpoints/{id}",
      // Named apart from the list (`get_webhooks_endpoints`), which the path alone would also name.
      operationId: "get_webhook_endpoint",
      tags: ["Webhooks"],
      summary: "Read a webhook endpoint",
      description: "The endpoint and its delivery state; another account's, or a deleted one, is a 404. Needs the `settings:read` scope.",
      request: { params: EndpointParams },
      responses: { 200: jsonContent(EndpointEnvelope, "The endpoint"), ...errorResponses([400, 404]) },
    }),
    { scope: "settings:read", weight: 1 },
    async (c) => ok(c, await getEndpoint(callerOf(c), c.req.valid("param").id)),
  );
}
