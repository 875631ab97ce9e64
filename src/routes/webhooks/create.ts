// POST /api/v1/webhooks/endpoints: register an endpoint; its signing secret is answered here once.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { createEndpoint } from "../../services/webhook-endpoints.ts";
import { EndpointCreated, EndpointInput } from "./schema.ts";

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
      responses: { 200: jsonContent(EndpointCreated, "The endpoint and its secret"), ...errorResponses([400, 409, 422]) },
    }),
    { scope: "settings:write", weight: 1 },
    async (c) => ok(c, await createEndpoint(callerOf(c), c.req.valid("json")), "Webhook endpoint registered"),
  );
}
