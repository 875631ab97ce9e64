// POST /api/v1/webhooks/endpoints: register an endpoint; its signing secret is answered here once.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { createEndpoint } from "../../services/webhook-endpoints.ts";
import { EndpointCreated, EndpointInput } from "./schema.ts";

/** What a client does next with the endpoint just made (OpenAPI links). */
const ENDPOINT_LINKS: Record<string, [string, string]> = {
  Read: ["get_webhook_endpoint", "Read the endpoint and its delivery state"],
  Change: ["patch_webhooks_endpoints", "Change its URL, subscription, or whether it is active"],
  Test: ["post_webhooks_endpoints_test", "Send it a test event"],
  RotateSecret: ["post_webhooks_endpoints_rotate_secret", "Rotate its secret"],
  Delete: ["delete_webhooks_endpoints", "Delete it"],
};

export function registerWebhooksCreate(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/webhooks/endpoints",
      tags: ["Webhooks"],
      summary: "Register a webhook endpoint",
      description:
        "From now on every event of the account it subscribes to is POSTed to `url`, signed by Standard Webhooks 1.0 with the `secreto` answered here (once: store it). Events written before its creation are not sent (the feed has them). At most 16 endpoints per account (409 `WEBHOOKS_LIMIT`); a URL the gateway does not deliver to is a 400 naming `url`. Needs the `settings:write` scope.",
      request: { body: jsonBody(EndpointInput) },
      responses: {
        200: {
          ...jsonContent(EndpointCreated, "The endpoint and its secret"),
          links: Object.fromEntries(
            Object.entries(ENDPOINT_LINKS).map(([name, [operationId, description]]) => [
              name,
              { operationId, description, parameters: { id: "$response.body#/data/endpoint/id" } },
            ]),
          ),
        },
        ...errorResponses([400, 409, 422]),
      },
    }),
    { scope: "settings:write", weight: 1 },
    async (c) => ok(c, await createEndpoint(callerOf(c), c.req.valid("json")), "Webhook endpoint registered"),
  );
}
