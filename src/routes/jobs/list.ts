// GET /api/v1/jobs: the account's jobs, newest first, a page at a time.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { listJobs } from "../../services/jobs.ts";
import { JobsPage, JobsQuery } from "./schema.ts";

export function registerJobsList(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/jobs",
      tags: ["Jobs and events"],
      summary: "List the account's jobs",
      description: "Newest first; `estado` keeps one state. Ended jobs are kept 30 days. Nothing is asked of the SII.",
      request: { query: JobsQuery },
      responses: { 200: jsonContent(JobsPage, "A page of jobs"), ...errorResponses([400]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      const { estado, before, limit } = c.req.valid("query");
      return ok(c, await listJobs(callerOf(c), { estado, before, limit: limit ?? 20 }));
    },
  );
}
