// DELETE /api/v1/webhooks/endpoints/{id}: stop delivering to an endpoint and erase its secrets.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { deleteEndpoint } from "../../services/webhook-endpoints.ts";
import { EndpointDeleted, EndpointParams } from "./schema.ts";

export function registerWebhooksDelete(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "delete",
      path: "/api/v1/webhooks/endpoints/{id}",
      tags: ["Webhooks"],
      summary: "Delete a webhook endpoint",
      description:
        "Nothing more is sent to it; an attempt in flight may still arrive (its `webhook-id` tells it apart). Its place among the 16 is free at once. Needs the `settings:write` scope.",
      request: { params: EndpointParams },
      responses: { 200: jsonContent(EndpointDeleted, "The endpoint is gone"), ...errorResponses([400, 404]) },
    }),
    { scope: "settings:write", weight: 1 },
    async (c) => ok(c, await deleteEndpoint(callerOf(c), c.req.valid("param").id), "Webhook endpoint deleted"),
  );
}
