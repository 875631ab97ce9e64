// The RCV writes and the sales summary detail; the payloads are validated strictly here before
// anything is sent. The purchase type change is the portal's public call (src/sii/rcv.ts
// `cambiaTipoCompra`); the summaries' SII-side calls are inferred (src/sii/rcv-inferred.ts).
//   POST …/compras/set_tipo_transaccion/{receptor}/{periodo}
//   POST …/ventas/set_resumen/{emisor}/{periodo}
//   POST …/ventas/delete_resumen/{emisor}/{periodo}
//   POST …/ventas/set_boletas_diarias/{emisor}/{periodo}/{dte}
//   POST …/ventas/get_detalle_resumen/{emisor}/{periodo}   (public reads: getResumen, obtieneListaBoletasMes)
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError, type FieldError } from "../../platform/errors.ts";
import { isDryRun, registerOperation, valid } from "../../platform/operation.ts";
import { Ambiente, DryRun, Periodo, Rut } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import type { CookieJar } from "../../sii/cookies.ts";
import type { SiiContext } from "../../sii/http.ts";
import { cambiaTipoCompra, DAILY_TYPES, obtieneListaBoletasMes, rcvCall, resumenRows } from "../../sii/rcv.ts";
import { deleteResumen, setBoletasDiarias, setResumen } from "../../sii/rcv-inferred.ts";
import { siiContext } from "../sii-context.ts";
import { checkPeriodo, RcvAuthBody, withRcvSession } from "./shared.ts";

/** Types a taxpayer declares as monthly summaries instead of per document. */
export const SUMMARY_TYPES = [35, 38, 39, 41, 48] as const;
/** Purchase types whose transaction type can be set. */
const PURCHASE_TYPES = [29, 30, 32, 33, 34, 40, 43, 45, 46, 55, 56, 60, 61, 108, 901, 914];

const Amount = z.number().int({ error: "must be a whole number of pesos" }).min(0, { error: "must be 0 or more" });
const Count = z.number().int({ error: "must be a whole number" }).min(0, { error: "must be 0 or more" });
const Totals = { monto_exento: Amount, monto_neto: Amount, monto_iva: Amount, monto_total: Amount };

/** monto_total must be what its parts add up to. */
function checkTotals(
  rows: { monto_exento: number; monto_neto: number; monto_iva: number; monto_total: number }[],
  path: string,
): FieldError[] {
  return rows.flatMap((r, i) =>
    r.monto_exento + r.monto_neto + r.monto_iva === r.monto_total
      ? []
      : [
          {
            path: `${path}.${i}.monto_total`,
            location: "body" as const,
            message: `must be monto_exento + monto_neto + monto_iva (${r.monto_exento + r.monto_neto + r.monto_iva})`,
          },
        ],
  );
}

function refuse(errors: FieldError[]): void {
  if (errors.length) throw new ApiError(400, "VALIDATION_ERROR", `Invalid ${errors.map((e) => e.path).join(", ")}`, { errors });
}

const withAuth = <T extends z.ZodRawShape>(shape: T) => RcvAuthBody.extend(shape);

const Written = envelope(z.object({ rut: z.string(), periodo: z.string(), sii: z.record(z.string(), z.unknown()) }).openapi("RcvWrite"));
const Query = z.object({ ambiente: Ambiente, dry_run: DryRun });

interface WriteSpec<B extends z.ZodType> {
  path: string;
  summary: string;
  /** How the SII-side call is known (the operation's description). */
  description?: string;
  side: "receptor" | "emisor";
  body: B;
  extraParams?: Record<string, z.ZodType>;
  check?: (c: Context<AppEnv>, body: z.output<B>, params: Record<string, unknown>) => FieldError[];
  send: (
    ctx: SiiContext,
    jar: CookieJar,
    rut: string,
    periodo: string,
    body: z.output<B>,
    params: Record<string, unknown>,
  ) => Promise<Record<string, unknown>>;
}

function registerWrite<B extends z.ZodType>(app: OpenAPIHono<AppEnv>, spec: WriteSpec<B>): void {
  const Params = pathParams({
    [spec.side]: Rut,
    periodo: Periodo,
    ...spec.extraParams,
  });
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: spec.path,
      tags: ["RCV"],
      summary: spec.summary,
      description:
        spec.description ??
        "The SII-side call of this operation is inferred (not public); `dry_run` validates everything without contacting the SII.",
      request: { params: Params, query: Query, body: jsonBody(spec.body) },
      responses: { 200: jsonContent(Written, "The SII's confirmation"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    async (c) => {
      const params = valid(c, "param", Params) as Record<string, unknown> & { periodo: string };
      const rut = String(params[spec.side]);
      checkPeriodo(c, params.periodo);
      const body = valid(c, "json", spec.body) as z.output<B> & { auth: z.output<typeof RcvAuthBody>["auth"] };
      refuse(spec.check?.(c, body, params) ?? []);
      if (isDryRun(c))
        return ok(
          c,
          { rut, periodo: params.periodo, sii: {} },
          "Preview only (dry_run): the request is valid; nothing was sent to the SII",
        );
      const ctx = await siiContext(c);
      const answer = await withRcvSession(c, ctx, rut, body.auth, (jar) => spec.send(ctx, jar, rut, params.periodo, body, params));
      const { metaData: _meta, ...sii } = answer;
      return ok(
        c,
        { rut, periodo: params.periodo, sii },
        String((sii.respEstado as { msgeRespuesta?: string } | undefined)?.msgeRespuesta ?? "OK"),
      );
    },
  );
}

const Resumen = z.object({ tipo_documento: z.number().int(), documentos: Count, ...Totals });
const Dia = z.object({
  dia: z.number().int().min(1).max(31),
  documentos: Count,
  folio_inicial: z.number().int().positive(),
  folio_final: z.number().int().positive(),
  ...Totals,
});

export function registerRcvWrites(app: OpenAPIHono<AppEnv>): void {
  registerWrite(app, {
    path: "/api/v1/sii/rcv/compras/set_tipo_transaccion/{receptor}/{periodo}",
    summary: "Set the transaction type of purchase documents",
    description:
      "The portal's own call (`cambiaTipoCompra`), one document at a time in the order given; a refusal stops there and names the documents already changed. `dry_run` validates everything without contacting the SII.",
    side: "receptor",
    body: withAuth({
      documentos: z
        .array(
          z.object({
            tipo_documento: z.number().int(),
            rut_emisor: Rut,
            folio: z.number().int().positive(),
            tipo_transaccion: z.number().int().min(1).max(7).openapi({
              description:
                "1 del giro, 2 supermercado, 3 bienes raíces, 4 activo fijo, 5 IVA uso común, 6 IVA no recuperable, 7 no corresponde",
            }),
            codigo_iva_no_recuperable: z.number().int().min(1).max(9).optional().openapi({
              description: "Not accepted: the SII's call carries no such code (set it in the portal)",
            }),
          }),
        )
        .min(1)
        .max(500),
    }).openapi("RcvSetTipoTransaccion"),
    check: (_c, body) =>
      body.documentos.flatMap((d, i) => [
        ...(PURCHASE_TYPES.includes(d.tipo_documento)
          ? []
          : [
              {
                path: `documentos.${i}.tipo_documento`,
                location: "body" as const,
                message: `must be a purchase document type (${PURCHASE_TYPES.join(", ")})`,
              },
            ]),
        // The public call (devlas-cl/dte-sii SiiPortalAuth.js cambiarTipoCompra) has no field for it:
        // refused rather than dropped without a word.
        ...(d.codigo_iva_no_recuperable === undefined
          ? []
          : [
              {
                path: `documentos.${i}.codigo_iva_no_recuperable`,
                location: "body" as const,
                message: "cannot be sent: the SII's change of purchase type carries no code for non-recoverable VAT",
              },
            ]),
      ]),
    send: async (ctx, jar, rut, periodo, body) => {
      const cambios: Record<string, unknown>[] = [];
      for (const [i, d] of body.documentos.entries()) {
        const doc = { tipo_documento: d.tipo_documento, rut_emisor: d.rut_emisor, folio: d.folio, tipo_transaccion: d.tipo_transaccion };
        try {
          cambios.push({ ...doc, data: await cambiaTipoCompra(ctx, jar, rut, periodo, doc) });
        } catch (err) {
          if (!(err instanceof ApiError) || !cambios.length) throw err;
          // Earlier documents were changed: say which, so a retry starts where this one stopped.
          throw new ApiError(err.status, err.code, `${err.message} (document ${i}); the ${cambios.length} before it were changed`, {
            ...err.init,
            details: { ...err.init.details, documento: i, cambiados: cambios },
          });
        }
      }
      return { data: "OK", cambios };
    },
  });

  registerWrite(app, {
    path: "/api/v1/sii/rcv/ventas/set_resumen/{emisor}/{periodo}",
    summary: "Enter or replace monthly sales summaries",
    side: "emisor",
    body: withAuth({ resumenes: z.array(Resumen).min(1).max(SUMMARY_TYPES.length) }).openapi("RcvSetResumen"),
    check: (_c, body) => [
      ...body.resumenes.flatMap((r, i) =>
        (SUMMARY_TYPES as readonly number[]).includes(r.tipo_documento)
          ? []
          : [{ path: `resumenes.${i}.tipo_documento`, location: "body" as const, message: `must be one of ${SUMMARY_TYPES.join(", ")}` }],
      ),
      ...body.resumenes.flatMap((r, i) =>
        body.resumenes.findIndex((o) => o.tipo_documento === r.tipo_documento) === i
          ? []
          : [{ path: `resumenes.${i}.tipo_documento`, location: "body" as const, message: "at most one summary per type and period" }],
      ),
      ...checkTotals(body.resumenes, "resumenes"),
    ],
    send: (ctx, jar, rut, periodo, body) => setResumen(ctx, jar, rut, periodo, body.resumenes),
  });

  registerWrite(app, {
    path: "/api/v1/sii/rcv/ventas/delete_resumen/{emisor}/{periodo}",
    summary: "Delete monthly sales summaries",
    side: "emisor",
    body: withAuth({
      tipos_documento: z
        .array(z.number().int())
        .min(1)
        .max(SUMMARY_TYPES.length)
        .optional()
        .openapi({ description: "Default: every summary type" }),
    }).openapi("RcvDeleteResumen"),
    check: (_c, body) =>
      (body.tipos_documento ?? []).flatMap((t, i) =>
        (SUMMARY_TYPES as readonly number[]).includes(t)
          ? []
          : [{ path: `tipos_documento.${i}`, location: "body" as const, message: `must be one of ${SUMMARY_TYPES.join(", ")}` }],
      ),
    send: async (ctx, jar, rut, periodo, body) => {
      try {
        return await deleteResumen(ctx, jar, rut, periodo, body.tipos_documento ?? [...SUMMARY_TYPES]);
      } catch (err) {
        if (err instanceof ApiError && /no existe resumen/i.test(String(err.init.details?.sii_message ?? ""))) {
          throw new ApiError(404, "HTTP_404", "There is no summary of those types in this period", { details: err.init.details });
        }
        throw err;
      }
    },
  });

  registerWrite(app, {
    path: "/api/v1/sii/rcv/ventas/set_boletas_diarias/{emisor}/{periodo}/{dte}",
    summary: "Enter or replace the daily receipts detail of a period",
    description:
      "Sent to the daily receipts' service of the SII (complementoscvui facadeServiceBoletasDiarias, public by its read); the write method and its day fields are inferred (not public). `dry_run` validates everything without contacting the SII.",
    side: "emisor",
    extraParams: {
      dte: z.coerce
        .number()
        .int()
        .refine((n) => (SUMMARY_TYPES as readonly number[]).includes(n), { error: `must be one of ${SUMMARY_TYPES.join(", ")}` })
        .openapi({ param: { name: "dte", in: "path" }, type: "integer", example: 39 }),
    },
    body: withAuth({ dias: z.array(Dia).min(1).max(31) }).openapi("RcvSetBoletasDiarias"),
    check: (_c, body, params) => {
      const periodo = String(params.periodo);
      const days = new Date(Date.UTC(Number(periodo.slice(0, 4)), Number(periodo.slice(4, 6)), 0)).getUTCDate();
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
    send: (ctx, jar, rut, periodo, body, params) => setBoletasDiarias(ctx, jar, rut, periodo, Number(params.dte), body.dias),
  });

  // The summaries' detail: a read (no dry_run), with the same credentials. Both SII calls are
  // public: the sales summary (getResumen) names the types kept as totals, and the daily receipts'
  // read (obtieneListaBoletasMes) gives the days of 39 and 48.
  const Params = pathParams({
    emisor: Rut,
    periodo: Periodo,
  });
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/ventas/get_detalle_resumen/{emisor}/{periodo}",
      tags: ["RCV"],
      summary: "Full detail of the sales summaries (receipts and the like) of a period",
      description:
        "The sales summary's types kept as totals, with the days of receipts (39) and vouchers (48) as the SII lists them; the day entries' field names other than `dia` are inferred.",
      request: {
        params: Params,
        query: z.object({ ambiente: Ambiente }),
        body: jsonBody(RcvAuthBody),
      },
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
    async (c) => {
      const { emisor, periodo } = valid(c, "param", Params);
      checkPeriodo(c, periodo);
      const { auth } = valid(c, "json", RcvAuthBody);
      const ctx = await siiContext(c);
      const [body, dv] = emisor.split("-");
      const { summary, days } = await withRcvSession(c, ctx, emisor, auth, async (jar) => {
        const summary = await rcvCall(ctx, jar, "getResumen", {
          rutEmisor: body,
          dvEmisor: dv,
          ptributario: periodo,
          estadoContab: "REGISTRO",
          operacion: "VENTA",
          busquedaInicial: true,
        });
        const totalsOnly = resumenRows(summary).filter((r) => r.tipo_ingreso === "RESUMEN");
        const days = new Map<number, Awaited<ReturnType<typeof obtieneListaBoletasMes>>>();
        for (const r of totalsOnly) {
          if ((DAILY_TYPES as readonly number[]).includes(r.tipo_documento)) {
            days.set(r.tipo_documento, await obtieneListaBoletasMes(ctx, jar, emisor, periodo, r.tipo_documento));
          }
        }
        return { summary, days };
      });
      const num = (value: unknown) => Number(value ?? 0) || 0;
      const resumenes = resumenRows(summary)
        .filter((r) => r.tipo_ingreso === "RESUMEN")
        .map((r) => ({
          tipo_documento: r.tipo_documento,
          documentos: r.documentos,
          monto_exento: r.monto_exento,
          monto_neto: r.monto_neto,
          monto_iva: r.monto_iva,
          monto_total: r.monto_total,
          dias: (days.get(r.tipo_documento)?.dias ?? []).map((d) => ({
            dia: num(d.dia),
            documentos: num(d.totalDocumentos),
            folio_inicial: num(d.folioInicial),
            folio_final: num(d.folioFinal),
            monto_exento: num(d.montoExento),
            monto_neto: num(d.montoNeto),
            monto_iva: num(d.montoIva),
            monto_total: num(d.montoTotal),
          })),
        }));
      const { metaData: _meta, ...resumen } = summary;
      const boletas = Object.fromEntries([...days].map(([tipo, month]) => [String(tipo), month]));
      return ok(c, { rut: emisor, periodo, resumenes, sii: { resumen, boletas } });
    },
  );
}
