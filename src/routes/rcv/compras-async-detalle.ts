// POST /api/v1/sii/rcv/compras/async/detalle/{receptor}/{periodo}/{solicitud_id}/{dte}/{estado}:
// the purchases download, step 3 (documents): the finished file's documents (registros checked against the request's count).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { DETAIL_WEIGHT, FILE_BLOCK_ROWS } from "../../services/rcv-charge.ts";
import { answerAsync } from "./answers.ts";
import { detailChargeRule, FILE_COUNT } from "./charge-rules.ts";
import { AmbienteQuery, Dte, Estado, FileEnvelope, RcvAuthBody, RcvPeriodo, Receptor, SolicitudId } from "./schema.ts";

const Params = pathParams({ receptor: Receptor, periodo: RcvPeriodo, solicitud_id: SolicitudId, dte: Dte, estado: Estado });

export function registerRcvComprasAsyncDetalle(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/compras/async/detalle/{receptor}/{periodo}/{solicitud_id}/{dte}/{estado}",
      tags: ["RCV"],
      summary: "Purchases download, step 3: documents",
      description: `The finished file's purchase documents, streamed as they are read (any size). 400 while the request is not \`TERMINADO\` yet. ${detailChargeRule(FILE_BLOCK_ROWS, FILE_COUNT)}`,
      request: { params: Params, query: AmbienteQuery, body: jsonBody(RcvAuthBody) },
      responses: { 200: jsonContent(FileEnvelope, "Every document of the file"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: DETAIL_WEIGHT },
    (c) => {
      const { receptor, periodo, solicitud_id, dte, estado } = c.req.valid("param");
      return answerAsync(c, "detalle", { rut: receptor, periodo, tipo: dte, operacion: "COMPRA", estado }, solicitud_id);
    },
  );
}
