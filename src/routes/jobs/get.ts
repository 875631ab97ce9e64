// GET /api/v1/jobs/{id}: one job of the account, with what the SII answered last.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { getJob } from "../../services/jobs.ts";
import { JobEnvelope, JobParams } from "./schema.ts";

export function registerJobsGet(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/jobs/{id}",
      // Named apart from the list (`get_jobs`), which the path alone would also name.
      operationId: "get_job",
      tags: ["Jobs and events"],
      summary: "Read a job",
      description:
        "The job's state, what the SII answered last and when it asks next. Another account's job is a 404. Nothing is asked of the SII.",
      request: { params: JobParams },
      responses: { 200: jsonContent(JobEnvelope, "The job"), ...errorResponses([400, 404]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => ok(c, await getJob(callerOf(c), c.req.valid("param").id)),
  );
}
