// POST /api/v1/sii/rcv/compras/detalle/{receptor}/{periodo}/{dte}/{estado}: the purchases of a
// period, of one type or (dte 0) every type with detail.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, pathParams } from "../../platform/schemas.ts";
import { DETAIL_BLOCK_ROWS, DETAIL_WEIGHT } from "../../services/rcv-charge.ts";
import { answerDetail } from "./answers.ts";
import { DETAIL_COUNT, detailChargeRule } from "./charge-rules.ts";
import { DetailQuery, DetailResponse, Dte, Estado, RcvAuthBody, RcvPeriodo, Receptor } from "./schema.ts";

const Params = pathParams({ receptor: Receptor, periodo: RcvPeriodo, dte: Dte, estado: Estado });

export function registerRcvComprasDetalle(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/compras/detalle/{receptor}/{periodo}/{dte}/{estado}",
      tags: ["RCV"],
      summary: "Purchases detail of a period",
      description: `The purchase documents of the month in one state, of one type or (\`dte\` 0) of every type with detail; types the SII keeps only as totals are listed in \`sin_detalle\`. A period larger than the SII's synchronous detail serves is a 502 pointing to the asynchronous download. \`formato=csv\` answers the SII's own export (ISO-8859-1). ${detailChargeRule(DETAIL_BLOCK_ROWS, DETAIL_COUNT)}`,
      request: { params: Params, query: DetailQuery, body: jsonBody(RcvAuthBody) },
      responses: { 200: DetailResponse, ...errorResponses([400, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: DETAIL_WEIGHT },
    (c) => {
      const { receptor, periodo, dte, estado } = c.req.valid("param");
      return answerDetail(c, { rut: receptor, periodo, operacion: "COMPRA", estado }, dte);
    },
  );
}
