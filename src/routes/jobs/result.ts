// GET /api/v1/jobs/{id}/result: a finished RCV download's documents, as `async/detalle` answers them,
// read from the job's sealed pieces for 24 hours after the job fetched them; nothing is asked of the SII.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { okHeld } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { holdText } from "../../platform/stream.ts";
import { jobResult } from "../../services/jobs.ts";
import { RESULT_BLOCK_ROWS } from "../../services/rcv-charge.ts";
import { FileEnvelope } from "../rcv-shared.ts";
import { JobParams } from "./schema.ts";

export function registerJobsResult(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/jobs/{id}/result",
      tags: ["Jobs and events"],
      summary: "Read an RCV download's documents",
      description: `For a \`descarga_rcv\` job once \`completado\` (event \`rcv_download.ready\`): the file's documents, as \`async/detalle\` answers them (the count checked against the SII's declared \`registros\` when the job fetched them), read again as often as needed for 24 hours (\`descarga.resultado_hasta\`); then they are erased and this is a 410 \`JOB_RESULT_GONE\`. Before that, or for another kind of job, a 409 \`JOB_STATE\`. Nothing is asked of the SII. Charged 1 unit per started block of ${RESULT_BLOCK_ROWS} documents (the documents were paid for when the job fetched them).`,
      request: { params: JobParams },
      responses: { 200: jsonContent(FileEnvelope, "Every document of the file"), ...errorResponses([400, 404, 409, 410, 429]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => okHeld(c, await holdText(await jobResult(callerOf(c), c.req.valid("param").id))),
  );
}
