// POST /api/v1/jobs/{id}/resume: a job whose SII token ran out continues with a fresh one from the
// certificate given now (the certificate itself is not kept).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { resumeJob } from "../../services/jobs.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import { JobEnvelope, JobParams } from "./schema.ts";

export function registerJobsResume(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/jobs/{id}/resume",
      tags: ["Jobs and events"],
      summary: "Resume a job waiting for credentials",
      description:
        "For a job in `credenciales_requeridas` (event `job.credentials_required`): the certificate gets a new SII token, the job keeps it sealed and asks the SII at once. Any other state is a 409 `JOB_STATE`.",
      request: { params: JobParams, body: jsonBody(CertAuthBody) },
      responses: { 200: jsonContent(JobEnvelope, "The job, pending again"), ...errorResponses([400, 404, 409, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      const credential = await parseCertificate(c, c.req.valid("json").auth.cert);
      return ok(c, await resumeJob(callerOf(c), c.req.valid("param").id, credential), "Job resumed");
    },
  );
}
