// POST /api/v1/sii/rcv/ventas/set_boletas_diarias/{emisor}/{periodo}/{dte}: enters or replaces the
// daily receipts of a period (the write is inferred: src/sii/rcv-inferred.ts).
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { IntegerParam } from "../../platform/params.ts";
import { pathParams } from "../../platform/schemas.ts";
import { fieldPath } from "../../platform/validation.ts";
import { EXAMPLE_CLAVE } from "../example-credentials.ts";
import { Count, Emisor, MAX_FOLIO, RcvPeriodo, SUMMARY_TYPES, Totals, withAuth } from "./schema.ts";
import { checkTotals, registerRcvWrite } from "./write.ts";

const Dia = z.object({
  dia: z
    .number()
    .int()
    .min(1)
    .max(31)
    .register(z.globalRegistry, { description: "Day of the month, 1 to 31 (past the period's last day it is a 400)" }),
  documentos: Count.meta({ description: "Receipts issued that day" }),
  folio_inicial: z.number().int().min(1).max(MAX_FOLIO).register(z.globalRegistry, { description: "First folio of the day" }),
  folio_final: z
    .number()
    .int()
    .min(1)
    .max(MAX_FOLIO)
    .register(z.globalRegistry, { description: "Last folio of the day, not lower than folio_inicial" }),
  ...Totals,
});

const Params = pathParams({
  emisor: Emisor,
  periodo: RcvPeriodo,
  dte: IntegerParam({
    min: Math.min(...SUMMARY_TYPES),
    max: Math.max(...SUMMARY_TYPES),
    values: SUMMARY_TYPES,
    noun: "a document type number",
    example: 39,
    description: "The summary type whose days these are: 35, 38, 39 (boletas), 41 (boletas exentas) or 48 (vouchers)",
  }),
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
    body: withAuth({
      dias: z
        .array(Dia)
        .min(1)
        .max(31)
        .register(z.globalRegistry, { description: "The days, 1 to 31 entries, one per day (a day given twice is a 400)" }),
    }).openapi("RcvSetBoletasDiarias", {
      example: {
        auth: { pass: EXAMPLE_CLAVE },
        dias: [
          {
            dia: 1,
            documentos: 10,
            folio_inicial: 100,
            folio_final: 109,
            monto_exento: 0,
            monto_neto: 10000,
            monto_iva: 1900,
            monto_total: 11900,
          },
        ],
      },
    }),
    check: (body, params) => {
      const days = new Date(Date.UTC(Number(params.periodo.slice(0, 4)), Number(params.periodo.slice(4, 6)), 0)).getUTCDate();
      return [
        ...body.dias.flatMap((d, i) => [
          ...(d.dia <= days
            ? []
            : [{ path: fieldPath("dias", i, "dia"), location: "body" as const, message: `the period has ${days} days` }]),
          ...(d.folio_final >= d.folio_inicial
            ? []
            : [{ path: fieldPath("dias", i, "folio_final"), location: "body" as const, message: "must not be lower than folio_inicial" }]),
          ...(body.dias.findIndex((o) => o.dia === d.dia) === i
            ? []
            : [{ path: fieldPath("dias", i, "dia"), location: "body" as const, message: "one entry per day" }]),
        ]),
        ...checkTotals(body.dias, "dias"),
      ];
    },
    change: (body, params) => ({ kind: "boletas_diarias", dte: params.dte, dias: body.dias }),
  });
}
