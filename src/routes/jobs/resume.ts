// POST /api/v1/jobs/{id}/resume: a job whose SII token or session ran out continues with a fresh one
// from the credential given now (the credential itself is not kept).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { resumeJob } from "../../services/jobs.ts";
import { loginOf } from "../credentials.ts";
import { RcvAuthBody } from "../rcv-shared.ts";
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
        "For a job in `credenciales_requeridas` (event `job.credentials_required`): a `seguimiento_envio` takes the certificate (`auth.cert`; a clave is a 400 naming it), which gets a new SII token; a `descarga_rcv` takes the clave or a certificate, which opens a new SII session, in which the request's state is read now (charged as `async/estado`). The job keeps only the token or session, sealed, and asks the SII at once. Any other state is a 409 `JOB_STATE`.",
      request: { params: JobParams, body: jsonBody(RcvAuthBody) },
      responses: { 200: jsonContent(JobEnvelope, "The job, pending again"), ...errorResponses([400, 403, 404, 409, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      const login = await loginOf(c, c.req.valid("json").auth);
      return ok(c, await resumeJob(callerOf(c), c.req.valid("param").id, login), "Job resumed");
    },
  );
}
