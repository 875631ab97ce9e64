// POST /api/v1/sii/rcv/compras/resumen/{receptor}/{periodo}/{estado}: the purchases summary of a period.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { answerSummary } from "./answers.ts";
import { AmbienteQuery, Estado, RcvAuthBody, RcvPeriodo, Receptor, Summary } from "./schema.ts";

const Params = pathParams({ receptor: Receptor, periodo: RcvPeriodo, estado: Estado });

export function registerRcvComprasResumen(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/compras/resumen/{receptor}/{periodo}/{estado}",
      tags: ["RCV"],
      summary: "Purchases summary of a period",
      description:
        "Per document type, the totals of the taxpayer's purchases register for the month in one state (the SII's `getResumen` of the RCV portal). Needs the taxpayer's clave, or a certificate of the taxpayer or its representative. An empty period is a 200 with no rows.",
      request: { params: Params, query: AmbienteQuery, body: jsonBody(RcvAuthBody) },
      responses: {
        200: jsonContent(Summary, "The summary (empty when the period has no documents)"),
        ...errorResponses([400, 422, 502, 503]),
      },
    }),
    { scope: "sii:read", weight: 2 },
    (c) => {
      const { receptor, periodo, estado } = c.req.valid("param");
      return answerSummary(c, { rut: receptor, periodo, operacion: "COMPRA", estado });
    },
  );
}
