// POST /api/v1/jobs: work the SII takes a while with, done without polling by hand: follow a sent
// envelope to its verdict (the certificate gets an SII token now; the job keeps only that token, sealed),
// or do an RCV asynchronous download (the SII is asked for the file now; the job keeps only the SII's
// session, sealed). Never the certificate or the clave.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { downloadRegister, trackEnvelope } from "../../services/jobs.ts";
import { CertAuthBody, loginOf, parseCertificate } from "../credentials.ts";
import { RcvAuthBody } from "../rcv-shared.ts";
import { DownloadTarget, JobCreated, TrackTarget } from "./schema.ts";

const Track = CertAuthBody.extend({
  tipo: z.literal("seguimiento_envio").register(z.globalRegistry, {
    description:
      "`seguimiento_envio`: ask where the envelope is on a schedule (30 s, 30 s, 1 min, 2 min, 5 min, then every 10 min) until the SII's verdict",
  }),
  envio: TrackTarget,
}).strict();

const Download = RcvAuthBody.extend({
  tipo: z.literal("descarga_rcv").register(z.globalRegistry, {
    description:
      "`descarga_rcv`: ask the SII for the register's file now, then ask its state on the same schedule and fetch it once `TERMINADO`",
  }),
  rcv: DownloadTarget,
}).strict();

const Body = z.discriminatedUnion("tipo", [Track, Download], { error: "must be seguimiento_envio or descarga_rcv" });

export function registerJobsCreate(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/jobs",
      tags: ["Jobs and events"],
      summary: "Follow a sent envelope, or do an RCV download, without polling",
      description:
        "`seguimiento_envio` starts a job that asks the SII where the envelope is (QueryEstUp, or the boleta service) on the cadence 30 s, 30 s, 1 min, 2 min, 5 min, then every 10 min (±20 %), for up to 72 hours, and writes one event with the verdict: `dte_envio.processed` (EPR: the counts say what was accepted) or `dte_envio.rejected`. The certificate gets an SII token now; the job keeps only that token, sealed. Each question is charged to this API token as `envios/estado` is.\n\n" +
        "`descarga_rcv` asks the SII now to prepare the register's file (as `async/solicitar`, in the taxpayer's session: a clave or a certificate), then asks its state on the same cadence and, once `TERMINADO`, fetches it and keeps its documents, sealed, for 24 hours: `GET /api/v1/jobs/{id}/result` answers them as `async/detalle` does, and event `rcv_download.ready` (or `rcv_download.failed`) says so. The job keeps only the SII's session, sealed. Each question is charged as `async/estado`, the file as `async/detalle` (by its declared documents); a file of more than 100 000 documents is not kept (read it with `async/detalle`, which streams it).\n\n" +
        "When the SII stops honouring what the job has, it waits in `credenciales_requeridas` (event `job.credentials_required`) for `POST /api/v1/jobs/{id}/resume`. A live job of the account that already does the same (the envelope, the download) is answered with 200 and `creado: false`, and nothing is asked of the SII.",
      request: { body: jsonBody(Body) },
      responses: {
        201: {
          ...jsonContent(JobCreated, "The job, created"),
          links: {
            Read: { operationId: "get_job", parameters: { id: "$response.body#/data/job/id" }, description: "Where the job is now" },
            Result: {
              operationId: "get_jobs_result",
              parameters: { id: "$response.body#/data/job/id" },
              description: "A `descarga_rcv`'s documents, once `rcv_download.ready`",
            },
            Cancel: { operationId: "delete_jobs", parameters: { id: "$response.body#/data/job/id" }, description: "Stop the job" },
            Resume: {
              operationId: "post_jobs_resume",
              parameters: { id: "$response.body#/data/job/id" },
              description: "Once it waits in credenciales_requeridas",
            },
          },
        },
        200: jsonContent(JobCreated, "The live job that already does the same"),
        ...errorResponses([400, 403, 409, 422, 502, 503]),
      },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      const body = c.req.valid("json");
      const caller = callerOf(c);
      const answer =
        body.tipo === "descarga_rcv"
          ? await downloadRegister(caller, body.rcv, await loginOf(c, body.auth))
          : await trackEnvelope(caller, body.envio, await parseCertificate(c, body.auth.cert));
      return answer.creado ? ok(c, answer, "Job created", 201) : ok(c, answer, "A live job already does this", 200);
    },
  );
}
