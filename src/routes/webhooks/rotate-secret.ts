// POST /api/v1/webhooks/endpoints/{id}/rotate-secret: a new secret; the old one signs too for 24 hours.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { rotateSecret } from "../../services/webhook-endpoints.ts";
import { EndpointParams, SecretRotated } from "./schema.ts";

export function registerWebhooksRotateSecret(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/webhooks/endpoints/{id}/rotate-secret",
      operationId: "post_webhooks_endpoints_rotate_secret",
      tags: ["Webhooks"],
      summary: "Rotate a webhook endpoint's secret",
      description:
        "Answers a new `secreto` (once). For the next 24 hours every delivery carries two signatures in `webhook-signature`, one per secret, so a receiver can switch without a gap; then only the new one. Needs the `settings:write` scope.",
      request: { params: EndpointParams },
      responses: { 200: jsonContent(SecretRotated, "The new secret"), ...errorResponses([400, 404]) },
    }),
    { scope: "settings:write", weight: 1 },
    async (c) => ok(c, await rotateSecret(callerOf(c), c.req.valid("param").id), "Secret rotated"),
  );
}
