// DELETE /api/v1/jobs/{id}: cancel a live job. A question to the SII in flight then changes nothing:
// its runner's lease loses to the cancel (src/ports/jobs.ts), so no event follows a cancel.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { cancelJob } from "../../services/jobs.ts";
import { JobEnvelope, JobParams } from "./schema.ts";

export function registerJobsCancel(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "delete",
      path: "/api/v1/jobs/{id}",
      tags: ["Jobs and events"],
      summary: "Cancel a job",
      description:
        "A job `pendiente` or `credenciales_requeridas` becomes `cancelado`, its sealed SII token is erased, and no event follows. An ended job is a 409 `JOB_STATE`. Nothing is asked of the SII.",
      request: { params: JobParams },
      responses: { 200: jsonContent(JobEnvelope, "The job, cancelled"), ...errorResponses([400, 404, 409]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => ok(c, await cancelJob(callerOf(c), c.req.valid("param").id), "Job cancelled"),
  );
}
