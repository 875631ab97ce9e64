// POST /api/v1/webhooks/endpoints/{id}/test: a `webhook.test` event for this endpoint alone, sent now.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { testEndpoint } from "../../services/webhook-endpoints.ts";
import { EndpointParams, EndpointTested } from "./schema.ts";

export function registerWebhooksTest(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/webhooks/endpoints/{id}/test",
      tags: ["Webhooks"],
      summary: "Send a test event to a webhook endpoint",
      description:
        "Writes a `webhook.test` event (in the feed too) and delivers it to this endpoint only, like any other event: signed, retried on failure. The answer does not wait for the delivery: `GET …/{id}` shows its `ultimo_intento`. A disabled endpoint is a 409 `WEBHOOK_STATE`. Needs the `settings:write` scope.",
      request: { params: EndpointParams },
      responses: {
        200: {
          ...jsonContent(EndpointTested, "The test event, on its way"),
          links: {
            Redeliver: {
              operationId: "post_events_redeliver",
              description: "Deliver the test event again",
              parameters: { id: "$response.body#/data/event/id" },
            },
          },
        },
        ...errorResponses([400, 404, 409]),
      },
    }),
    { scope: "settings:write", weight: 1 },
    async (c) => ok(c, await testEndpoint(callerOf(c), c.req.valid("param").id), "Test event written"),
  );
}
