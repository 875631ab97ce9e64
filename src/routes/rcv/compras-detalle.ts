// POST /api/v1/sii/rcv/compras/detalle/{receptor}/{periodo}/{dte}/{estado}: the purchases of a
// period, of one type or (dte 0) every type with detail.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { Periodo, Rut } from "../../platform/params.ts";
import { errorResponses, jsonBody, pathParams } from "../../platform/schemas.ts";
import { answerDetail } from "./factory.ts";
import { DetailQuery, DetailResponse, Dte, Estado, RcvAuthBody } from "./schema.ts";

const Params = pathParams({ receptor: Rut, periodo: Periodo, dte: Dte, estado: Estado });

export function registerRcvComprasDetalle(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/compras/detalle/{receptor}/{periodo}/{dte}/{estado}",
      tags: ["RCV"],
      summary: "Purchases detail of a period",
      request: { params: Params, query: DetailQuery, body: jsonBody(RcvAuthBody) },
      responses: { 200: DetailResponse, ...errorResponses([400, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: 2 },
    (c) => {
      const { receptor, periodo, dte, estado } = valid(c, "param", Params);
      return answerDetail(c, { rut: receptor, periodo, operacion: "COMPRA", estado }, dte);
    },
  );
}
