// POST /api/v1/sii/rcv/ventas/detalle/{emisor}/{periodo}/{dte}: the sales of a period, of one type
// or (dte 0) every type with detail.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, pathParams } from "../../platform/schemas.ts";
import { DETAIL_BLOCK_ROWS, DETAIL_WEIGHT } from "../../services/rcv-charge.ts";
import { answerDetail } from "./answers.ts";
import { DETAIL_COUNT, detailChargeRule } from "./charge-rules.ts";
import { DetailQuery, DetailResponse, Dte, Emisor, RcvAuthBody, RcvPeriodo } from "./schema.ts";

const Params = pathParams({ emisor: Emisor, periodo: RcvPeriodo, dte: Dte });

export function registerRcvVentasDetalle(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/ventas/detalle/{emisor}/{periodo}/{dte}",
      tags: ["RCV"],
      summary: "Sales detail of a period",
      description: `The sales documents of the month, of one type or (\`dte\` 0) of every type with detail; types the SII keeps only as totals (boletas) are listed in \`sin_detalle\`. A period larger than the SII's synchronous detail serves is a 502 pointing to the asynchronous download. \`formato=csv\` answers the SII's own export (ISO-8859-1). ${detailChargeRule(DETAIL_BLOCK_ROWS, DETAIL_COUNT)}`,
      request: { params: Params, query: DetailQuery, body: jsonBody(RcvAuthBody) },
      responses: { 200: DetailResponse, ...errorResponses([400, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: DETAIL_WEIGHT },
    (c) => {
      const { emisor, periodo, dte } = c.req.valid("param");
      return answerDetail(c, { rut: emisor, periodo, operacion: "VENTA", estado: "REGISTRO" }, dte);
    },
  );
}
