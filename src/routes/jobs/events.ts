// GET /api/v1/events: the account's events in the order written, for clients that cannot receive
// webhooks: read with `after` = the last sequence seen, and nothing is missed or seen twice.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { listEvents } from "../../services/jobs.ts";
import { EventsPage, EventsQuery } from "./schema.ts";

export function registerEventsList(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/events",
      tags: ["Jobs and events"],
      summary: "List the account's events",
      description:
        "Events with a sequence above `after`, oldest first, of `type` when given; kept 30 days. Each is written in the same transaction as the job's state change it reports, so a job's state and its events never disagree. Nothing is asked of the SII.",
      request: { query: EventsQuery },
      responses: { 200: jsonContent(EventsPage, "A page of events"), ...errorResponses([400]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      const { after, type, limit } = c.req.valid("query");
      return ok(c, await listEvents(callerOf(c), { after: after ?? 0, type, limit: limit ?? 50 }));
    },
  );
}
