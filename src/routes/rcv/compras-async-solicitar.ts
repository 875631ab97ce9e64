// POST /api/v1/sii/rcv/compras/async/solicitar/{receptor}/{periodo}/{dte}/{estado}:
// the purchases download, step 1 (request): ask the SII to prepare a period's file (answers its solicitud_id).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { answerAsync } from "./answers.ts";
import { AmbienteQuery, Dte, Estado, JobEnvelope, RcvAuthBody, RcvPeriodo, Receptor } from "./schema.ts";

const Params = pathParams({ receptor: Receptor, periodo: RcvPeriodo, dte: Dte, estado: Estado });

export function registerRcvComprasAsyncSolicitar(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/compras/async/solicitar/{receptor}/{periodo}/{dte}/{estado}",
      tags: ["RCV"],
      summary: "Purchases download, step 1: request",
      description:
        "Asks the SII to prepare the month's purchases of one state and type as a file (for periods too large for the synchronous detail). Answers the request's `solicitud_id`; poll step 2 until `TERMINADO`, then read step 3.",
      request: { params: Params, query: AmbienteQuery, body: jsonBody(RcvAuthBody) },
      responses: { 200: jsonContent(JobEnvelope, "The request"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: 1 },
    (c) => {
      const { receptor, periodo, dte, estado } = c.req.valid("param");
      return answerAsync(c, "solicitar", { rut: receptor, periodo, tipo: dte, operacion: "COMPRA", estado });
    },
  );
}
