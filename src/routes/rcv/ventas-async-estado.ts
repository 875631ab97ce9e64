// POST /api/v1/sii/rcv/ventas/async/estado/{emisor}/{periodo}/{solicitud_id}/{dte}:
// the sales download, step 2 (state): the download request's state (CREADO, EN PROCESO, TERMINADO).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { answerAsync } from "./answers.ts";
import { AmbienteQuery, Dte, Emisor, JobEnvelope, RcvAuthBody, RcvPeriodo, SolicitudId } from "./schema.ts";

const Params = pathParams({ emisor: Emisor, periodo: RcvPeriodo, solicitud_id: SolicitudId, dte: Dte });

export function registerRcvVentasAsyncEstado(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/ventas/async/estado/{emisor}/{periodo}/{solicitud_id}/{dte}",
      tags: ["RCV"],
      summary: "Sales download, step 2: state",
      description:
        "The state of a sales download request: `CREADO`, `EN PROCESO`, `TERMINADO` (the file is ready) or an error. 404 when the SII has no such request for the period and type.",
      request: { params: Params, query: AmbienteQuery, body: jsonBody(RcvAuthBody) },
      responses: { 200: jsonContent(JobEnvelope, "The request"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: 1 },
    (c) => {
      const { emisor, periodo, solicitud_id, dte } = c.req.valid("param");
      return answerAsync(c, "estado", { rut: emisor, periodo, tipo: dte, operacion: "VENTA", estado: "REGISTRO" }, solicitud_id);
    },
  );
}
