// POST /api/v1/events/{id}/redeliver: send an event of the feed again, as a fresh series of attempts.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { redeliverEvent } from "../../services/webhook-endpoints.ts";
import { EventParams, Redelivered, RedeliverInput } from "./schema.ts";

export function registerEventsRedeliver(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/events/{id}/redeliver",
      tags: ["Webhooks"],
      summary: "Deliver an event again",
      description:
        "The event (kept 30 days) is sent again now to `endpoint_id`, or to every active endpoint subscribed to its type, with the same `webhook-id` as before: a receiver that kept it sees a duplicate. A disabled endpoint, or one with 100 events already waiting, is a 409 `WEBHOOK_STATE`. Needs the `settings:write` scope.",
      request: { params: EventParams, body: jsonBody(RedeliverInput) },
      responses: { 200: jsonContent(Redelivered, "The endpoints sending it again"), ...errorResponses([400, 404, 409, 422]) },
    }),
    { scope: "settings:write", weight: 1 },
    async (c) => ok(c, await redeliverEvent(callerOf(c), c.req.valid("param").id, c.req.valid("json").endpoint_id), "Event redelivered"),
  );
}
