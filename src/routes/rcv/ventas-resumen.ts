// POST /api/v1/sii/rcv/ventas/resumen/{emisor}/{periodo}: the sales summary of a period.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { answerSummary } from "./answers.ts";
import { AmbienteQuery, Emisor, RcvAuthBody, RcvPeriodo, Summary } from "./schema.ts";

const Params = pathParams({ emisor: Emisor, periodo: RcvPeriodo });

export function registerRcvVentasResumen(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/ventas/resumen/{emisor}/{periodo}",
      tags: ["RCV"],
      summary: "Sales summary of a period",
      description:
        "Per document type, the totals of the taxpayer's sales register for the month (the SII's `getResumen`), including the summaries entered as totals (boletas and the like). Needs the taxpayer's clave, or a certificate of the taxpayer or its representative.",
      request: { params: Params, query: AmbienteQuery, body: jsonBody(RcvAuthBody) },
      responses: {
        200: jsonContent(Summary, "The summary (empty when the period has no documents)"),
        ...errorResponses([400, 422, 502, 503]),
      },
    }),
    { scope: "sii:read", weight: 2 },
    (c) => {
      const { emisor, periodo } = c.req.valid("param");
      return answerSummary(c, { rut: emisor, periodo, operacion: "VENTA", estado: "REGISTRO" });
    },
  );
}
