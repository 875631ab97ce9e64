// PATCH /api/v1/webhooks/endpoints/{id}: change an endpoint's URL, subscription or description, or enable/disable it.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { updateEndpoint } from "../../services/webhook-endpoints.ts";
import { EndpointEnvelope, EndpointParams, EndpointPatch } from "./schema.ts";

export function registerWebhooksUpdate(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "patch",
      path: "/api/v1/webhooks/endpoints/{id}",
      tags: ["Webhooks"],
      summary: "Change a webhook endpoint",
      description:
        "Only the fields given change. `activo: true` enables a disabled endpoint: it goes on from the event where it stopped (the feed keeps 30 days). A new `url` is checked as at registration. Needs the `settings:write` scope.",
      request: { params: EndpointParams, body: jsonBody(EndpointPatch) },
      responses: { 200: jsonContent(EndpointEnvelope, "The endpoint, changed"), ...errorResponses([400, 404, 422]) },
    }),
    { scope: "settings:write", weight: 1 },
    async (c) => ok(c, await updateEndpoint(callerOf(c), c.req.valid("param").id, c.req.valid("json")), "Webhook endpoint changed"),
  );
}
