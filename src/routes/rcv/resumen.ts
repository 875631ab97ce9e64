// The RCV summaries: POST /api/v1/sii/rcv/compras/resumen/{receptor}/{periodo}/{estado} and
// POST /api/v1/sii/rcv/ventas/resumen/{emisor}/{periodo}. The SII's answer is kept whole under
// `sii`; `resumen` is the same rows with plain names.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { Ambiente, Periodo, Rut } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { rcvCall, resumenRows } from "../../sii/rcv.ts";
import { siiContext } from "../sii-context.ts";
import { checkPeriodo, Estado, RcvAuthBody, withRcvSession } from "./shared.ts";

const Row = z.object({
  tipo_documento: z.number().int(),
  nombre_documento: z.string(),
  tipo_ingreso: z
    .string()
    .openapi({ description: "`DET_ELE` electronic with detail, `DET_PAP` paper, `RESUMEN` totals only (e.g. boletas)" }),
  documentos: z.number().int(),
  monto_exento: z.number(),
  monto_neto: z.number(),
  monto_iva: z.number(),
  monto_iva_no_recuperable: z.number(),
  iva_uso_comun: z.number(),
  monto_total: z.number(),
  nota_credito: z.boolean().openapi({ description: "Credit notes come with positive amounts: subtract them" }),
});

const Summary = envelope(
  z
    .object({
      rut: z.string(),
      periodo: z.string(),
      operacion: z.enum(["COMPRA", "VENTA"]),
      estado: z.string(),
      total_documentos: z.number().int(),
      resumen: z.array(Row),
      sii: z
        .record(z.string(), z.unknown())
        .openapi({ description: "The SII's answer as received: `data` (rsmn* rows), `totDocRes`, `dataCabecera`, `respEstado`" }),
    })
    .openapi("RcvResumen"),
);

const Query = z.object({ ambiente: Ambiente });

function register(app: OpenAPIHono<AppEnv>, side: "compras" | "ventas"): void {
  const compras = side === "compras";
  const rutName = compras ? "receptor" : "emisor";
  const Params = compras
    ? pathParams({
        receptor: Rut,
        periodo: Periodo,
        estado: Estado,
      })
    : pathParams({
        emisor: Rut,
        periodo: Periodo,
      });
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: compras ? "/api/v1/sii/rcv/compras/resumen/{receptor}/{periodo}/{estado}" : "/api/v1/sii/rcv/ventas/resumen/{emisor}/{periodo}",
      tags: ["RCV"],
      summary: compras ? "Purchases summary of a period" : "Sales summary of a period",
      request: { params: Params, query: Query, body: jsonBody(RcvAuthBody) },
      responses: {
        200: jsonContent(Summary, "The summary (empty when the period has no documents)"),
        ...errorResponses([400, 422, 502, 503]),
      },
    }),
    async (c) => {
      const params = valid(c, "param", Params) as { periodo: string; estado?: string } & Record<string, string>;
      const rut = params[rutName] ?? "";
      checkPeriodo(c, params.periodo);
      const { auth } = valid(c, "json", RcvAuthBody);
      const estado = compras ? (params.estado ?? "REGISTRO") : "REGISTRO";
      const operacion = compras ? "COMPRA" : "VENTA";
      const [body, dv] = rut.split("-");
      const ctx = await siiContext(c);
      const answer = await withRcvSession(c, ctx, rut, auth, (jar) =>
        rcvCall(ctx, jar, "getResumen", {
          rutEmisor: body,
          dvEmisor: dv,
          ptributario: params.periodo,
          estadoContab: estado,
          operacion,
          busquedaInicial: true,
        }),
      );
      const { metaData: _meta, ...sii } = answer;
      const resumen = resumenRows(answer);
      const total = resumen.reduce((sum, r) => sum + r.documentos, 0);
      return ok(
        c,
        { rut, periodo: params.periodo, operacion, estado, total_documentos: total, resumen, sii },
        total ? "OK" : "The period has no documents",
      );
    },
  );
}

export function registerRcvResumen(app: OpenAPIHono<AppEnv>): void {
  register(app, "compras");
  register(app, "ventas");
}
