// POST /api/v1/jobs: follow a sent envelope to the SII's verdict without polling `envios/estado` by
// hand. The certificate gets an SII token now; the job keeps only that token, sealed (never the certificate).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { trackEnvelope } from "../../services/jobs.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import { TrackAnswer, TrackTarget } from "./schema.ts";

const Body = CertAuthBody.extend({
  tipo: z.enum(["seguimiento_envio"], { error: "must be seguimiento_envio" }).register(z.globalRegistry, {
    description:
      "`seguimiento_envio`: ask where the envelope is on a schedule (30 s, 30 s, 1 min, 2 min, 5 min, then every 10 min) until the SII's verdict",
  }),
  envio: TrackTarget,
}).strict();

export function registerJobsCreate(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/jobs",
      tags: ["Jobs and events"],
      summary: "Follow a sent envelope to the SII's verdict",
      description:
        "Starts a job that asks the SII where the envelope is (QueryEstUp, or the boleta service) on the cadence 30 s, 30 s, 1 min, 2 min, 5 min, then every 10 min (±20 %), for up to 72 hours, and writes one event with the verdict: `dte_envio.processed` (EPR: the counts say what was accepted) or `dte_envio.rejected`. The certificate gets an SII token now; the job keeps only that token, sealed, and when the SII stops honouring it the job waits in `credenciales_requeridas` (event `job.credentials_required`) for `POST /api/v1/jobs/{id}/resume`. Each question is charged to this API token as `envios/estado` is. A live job of the account that already follows the envelope is answered with 200 and `creado: false`.",
      request: { body: jsonBody(Body) },
      responses: {
        201: {
          ...jsonContent(TrackAnswer, "The job, created"),
          links: {
            Read: { operationId: "get_job", parameters: { id: "$response.body#/data/job/id" }, description: "Where the job is now" },
            Cancel: { operationId: "delete_jobs", parameters: { id: "$response.body#/data/job/id" }, description: "Stop following" },
            Resume: {
              operationId: "post_jobs_resume",
              parameters: { id: "$response.body#/data/job/id" },
              description: "Once it waits in credenciales_requeridas",
            },
          },
        },
        200: jsonContent(TrackAnswer, "The live job that already follows the envelope"),
        ...errorResponses([400, 409, 422, 502, 503]),
      },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      const body = c.req.valid("json");
      const credential = await parseCertificate(c, body.auth.cert);
      const caller = callerOf(c);
      const answer = await trackEnvelope(caller, body.envio, credential);
      return answer.creado ? ok(c, answer, "Job created", 201) : ok(c, answer, "A live job already follows this envelope", 200);
    },
  );
}
