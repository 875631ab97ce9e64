// POST /api/v1/sii/rcv/ventas/get_detalle_resumen/{emisor}/{periodo}: the sales summaries kept as
// totals with their days. A read (no dry_run) with the same credentials as the writes; both SII
// calls are public (src/sii/rcv.ts `rcvSummaryDetail`).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { rcvSummaryDetail } from "../../sii/rcv.ts";
import { siiServices } from "../sii-context.ts";
import { checkPeriodo, withRcvSession } from "./factory.ts";
import { AmbienteQuery, Emisor, RcvAuthBody, RcvPeriodo } from "./schema.ts";

const Params = pathParams({ emisor: Emisor, periodo: RcvPeriodo });

export function registerRcvVentasGetDetalleResumen(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/ventas/get_detalle_resumen/{emisor}/{periodo}",
      tags: ["RCV"],
      summary: "Full detail of the sales summaries (receipts and the like) of a period",
      description:
        "The sales summary's types kept as totals, with the days of receipts (39) and vouchers (48) as the SII lists them; the day entries' field names other than `dia` are inferred.",
      request: { params: Params, query: AmbienteQuery, body: jsonBody(RcvAuthBody) },
      responses: {
        200: jsonContent(
          envelope(
            z
              .object({
                rut: z.string(),
                periodo: z.string(),
                resumenes: z.array(z.record(z.string(), z.unknown())),
                sii: z.record(z.string(), z.unknown()),
              })
              .openapi("RcvDetalleResumen"),
          ),
          "The summaries with their daily detail",
        ),
        ...errorResponses([400, 422, 502, 503]),
      },
    }),
    { scope: "sii:read", weight: 2 },
    async (c) => {
      const { emisor, periodo } = valid(c, "param", Params);
      checkPeriodo(c, periodo);
      const { auth } = valid(c, "json", RcvAuthBody);
      const { ctx, sessions } = await siiServices(c);
      const { resumenes, sii } = await withRcvSession(c, sessions, emisor, auth, (jar) => rcvSummaryDetail(ctx, jar, emisor, periodo));
      return ok(c, { rut: emisor, periodo, resumenes, sii });
    },
  );
}
