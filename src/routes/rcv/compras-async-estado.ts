// POST /api/v1/sii/rcv/compras/async/estado/{receptor}/{periodo}/{solicitud_id}/{dte}/{estado}:
// the purchases download, step 2 (state): the download request's state (CREADO, EN PROCESO, TERMINADO).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { answerAsync } from "./answers.ts";
import { AmbienteQuery, Dte, Estado, JobEnvelope, RcvAuthBody, RcvPeriodo, Receptor, SolicitudId } from "./schema.ts";

const Params = pathParams({ receptor: Receptor, periodo: RcvPeriodo, solicitud_id: SolicitudId, dte: Dte, estado: Estado });

export function registerRcvComprasAsyncEstado(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/compras/async/estado/{receptor}/{periodo}/{solicitud_id}/{dte}/{estado}",
      tags: ["RCV"],
      summary: "Purchases download, step 2: state",
      description:
        "The state of a purchases download request: `CREADO`, `EN PROCESO`, `TERMINADO` (the file is ready) or an error. 404 when the SII has no such request for the period, state and type.",
      request: { params: Params, query: AmbienteQuery, body: jsonBody(RcvAuthBody) },
      responses: { 200: jsonContent(JobEnvelope, "The request"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: 1 },
    (c) => {
      const { receptor, periodo, solicitud_id, dte, estado } = c.req.valid("param");
      return answerAsync(c, "estado", { rut: receptor, periodo, tipo: dte, operacion: "COMPRA", estado }, solicitud_id);
    },
  );
}
