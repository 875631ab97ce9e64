// POST /api/v1/sii/rcv/ventas/async/solicitar/{emisor}/{periodo}/{dte}:
// the sales download, step 1 (request): ask the SII to prepare a period's file (answers its solicitud_id).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { Periodo, Rut } from "../../platform/params.ts";
import { errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { answerAsync } from "./factory.ts";
import { AmbienteQuery, Dte, JobEnvelope, RcvAuthBody } from "./schema.ts";

const Params = pathParams({ emisor: Rut, periodo: Periodo, dte: Dte });

export function registerRcvVentasAsyncSolicitar(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/ventas/async/solicitar/{emisor}/{periodo}/{dte}",
      tags: ["RCV"],
      summary: "Sales download, step 1: request",
      request: { params: Params, query: AmbienteQuery, body: jsonBody(RcvAuthBody) },
      responses: { 200: jsonContent(JobEnvelope, "The request"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: 1 },
    (c) => {
      const { emisor, periodo, dte } = valid(c, "param", Params);
      return answerAsync(c, "solicitar", { rut: emisor, periodo, tipo: dte, operacion: "VENTA", estado: "REGISTRO" });
    },
  );
}
