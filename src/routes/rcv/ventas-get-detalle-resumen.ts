// POST /api/v1/sii/rcv/ventas/get_detalle_resumen/{emisor}/{periodo}: the sales summaries kept as
// totals with their days. A read (no dry_run) with the same credentials as the writes; both SII
// calls are public (src/sii/rcv-summary-detail.ts `salesSummaryDetail`).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { readSalesSummaryDays } from "../../services/rcv.ts";
import { loginOf } from "../credentials.ts";
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
        "The sales summary's types kept as totals, with the days of receipts (39) and vouchers (48) as the SII lists them. Of a day only `dia` is read (the one field a public reader of the SII's answer names), checked to be a day of the period and listed once, else 502 SII_FORMAT_CHANGED (also when the month counts receipts and no entry has `dia`); the day's other fields are not public, so they are not read: the SII's entry is given as received in `dias[].sii` (and the whole answer in `sii.boletas`), never as guessed counts or amounts.",
      request: { params: Params, query: AmbienteQuery, body: jsonBody(RcvAuthBody) },
      responses: {
        200: jsonContent(
          envelope(
            z
              .object({
                rut: z.string(),
                periodo: z.string(),
                resumenes: z.array(
                  z
                    .object({
                      tipo_documento: z.number().int(),
                      documentos: z.number(),
                      monto_exento: z.number(),
                      monto_neto: z.number(),
                      monto_iva: z.number(),
                      monto_total: z.number(),
                      dias: z.array(
                        z.object({
                          dia: z.number().int().register(z.globalRegistry, { description: "The day of the month (the SII's `dia`)" }),
                          sii: z.record(z.string(), z.unknown()).register(z.globalRegistry, {
                            description: "The SII's day entry as received; its fields other than `dia` are not public and not read",
                          }),
                        }),
                      ),
                    })
                    .register(z.globalRegistry, { description: "A type kept as totals; `dias` only for receipts (39) and vouchers (48)" }),
                ),
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
      const { emisor, periodo } = c.req.valid("param");
      const login = await loginOf(c, c.req.valid("json").auth);
      return ok(c, await readSalesSummaryDays(callerOf(c), emisor, periodo, login));
    },
  );
}
