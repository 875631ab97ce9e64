// POST /api/v1/sii/rcv/ventas/set_boletas_diarias/{emisor}/{periodo}/{dte}: enters or replaces the
// daily receipts of a period (the write is inferred: src/sii/rcv-inferred.ts).
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { Periodo, Rut } from "../../platform/params.ts";
import { pathParams } from "../../platform/schemas.ts";
import { setBoletasDiarias } from "../../sii/rcv-inferred.ts";
import { checkTotals, registerRcvWrite } from "./factory.ts";
import { Count, SUMMARY_TYPES, Totals, withAuth } from "./schema.ts";

const Dia = z.object({
  dia: z.number().int().min(1).max(31),
  documentos: Count,
  folio_inicial: z.number().int().positive(),
  folio_final: z.number().int().positive(),
  ...Totals,
});

const Params = pathParams({
  emisor: Rut,
  periodo: Periodo,
  dte: z.coerce
    .number()
    .int()
    .refine((n) => (SUMMARY_TYPES as readonly number[]).includes(n), { error: `must be one of ${SUMMARY_TYPES.join(", ")}` })
    .openapi({ param: { name: "dte", in: "path" }, type: "integer", example: 39 }),
});

export function registerRcvVentasSetBoletasDiarias(app: OpenAPIHono<AppEnv>): void {
  registerRcvWrite(app, {
    path: "/api/v1/sii/rcv/ventas/set_boletas_diarias/{emisor}/{periodo}/{dte}",
    access: { scope: "sii:write", weight: 5, write: true },
    summary: "Enter or replace the daily receipts detail of a period",
    description:
      "Sent to the daily receipts' service of the SII (complementoscvui facadeServiceBoletasDiarias, public by its read); the write method and its day fields are inferred (not public). `dry_run` validates everything without contacting the SII.",
    params: Params,
    rut: (params) => params.emisor,
    body: withAuth({ dias: z.array(Dia).min(1).max(31) }).openapi("RcvSetBoletasDiarias"),
    check: (body, params) => {
      const days = new Date(Date.UTC(Number(params.periodo.slice(0, 4)), Number(params.periodo.slice(4, 6)), 0)).getUTCDate();
      return [
        ...body.dias.flatMap((d, i) => [
          ...(d.dia <= days ? [] : [{ path: `dias.${i}.dia`, location: "body" as const, message: `the period has ${days} days` }]),
          ...(d.folio_final >= d.folio_inicial
            ? []
            : [{ path: `dias.${i}.folio_final`, location: "body" as const, message: "must not be lower than folio_inicial" }]),
          ...(body.dias.findIndex((o) => o.dia === d.dia) === i
            ? []
            : [{ path: `dias.${i}.dia`, location: "body" as const, message: "one entry per day" }]),
        ]),
        ...checkTotals(body.dias, "dias"),
      ];
    },
    send: (ctx, jar, rut, body, params) => setBoletasDiarias(ctx, jar, rut, params.periodo, params.dte, body.dias),
  });
}
