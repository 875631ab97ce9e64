// The RCV details: POST /api/v1/sii/rcv/compras/detalle/{receptor}/{periodo}/{dte}/{estado} and
// POST /api/v1/sii/rcv/ventas/detalle/{emisor}/{periodo}/{dte}. `dte` 0 means every type with
// detail in the period (read from the summary first); types kept only as totals (boletas) have
// no detail and are listed as such.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { encodeLatin1 } from "../../lib/latin1.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { Ambiente, Formato, Periodo, Rut } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import type { CookieJar } from "../../sii/cookies.ts";
import type { SiiContext } from "../../sii/http.ts";
import { type DetalleRow, detalleRow, detalleRows, rcvCall, rcvRows } from "../../sii/rcv.ts";
import { siiContext } from "../sii-context.ts";
import { checkPeriodo, Document, Dte, ESTADOS, Estado, RcvAuthBody, withRcvSession } from "./shared.ts";
import { answerInSession, COMMIT_CHARS } from "./stream.ts";

const Detail = envelope(
  z
    .object({
      rut: z.string(),
      periodo: z.string(),
      operacion: z.enum(["COMPRA", "VENTA"]),
      estado: z.string(),
      registros: z.number().int().openapi({ description: "How many documents `documentos` holds" }),
      documentos: z.array(Document),
      sin_detalle: z
        .array(z.number().int())
        .openapi({ description: "Types the SII keeps only as totals in this period (no per-document detail)" }),
      sii: z
        .object({ data: z.array(z.record(z.string(), z.unknown())) })
        .openapi({ description: "The SII's rows as received (det* fields)" }),
    })
    .openapi("RcvDetalle"),
);

const Query = z.object({ ambiente: Ambiente, formato: Formato(["json", "csv"]) });

function register(app: OpenAPIHono<AppEnv>, side: "compras" | "ventas"): void {
  const compras = side === "compras";
  const rutName = compras ? "receptor" : "emisor";
  const Params = compras
    ? pathParams({ receptor: Rut, periodo: Periodo, dte: Dte, estado: Estado })
    : pathParams({ emisor: Rut, periodo: Periodo, dte: Dte });
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: compras
        ? "/api/v1/sii/rcv/compras/detalle/{receptor}/{periodo}/{dte}/{estado}"
        : "/api/v1/sii/rcv/ventas/detalle/{emisor}/{periodo}/{dte}",
      tags: ["RCV"],
      summary: compras ? "Purchases detail of a period" : "Sales detail of a period",
      request: { params: Params, query: Query, body: jsonBody(RcvAuthBody) },
      responses: {
        200: {
          description: "The documents, or with `formato=csv` the SII's export (ISO-8859-1) as received",
          content: { "application/json": { schema: Detail }, "text/csv": { schema: { type: "string" } } },
        },
        ...errorResponses([400, 422, 502, 503]),
      },
    }),
    async (c) => {
      const params = valid(c, "param", Params) as { periodo: string; dte: number; estado?: string } & Record<string, unknown>;
      const taxpayer = String(params[rutName]);
      checkPeriodo(c, params.periodo);
      const { auth } = valid(c, "json", RcvAuthBody);
      const operacion = compras ? "COMPRA" : "VENTA";
      const estado = compras ? (params.estado ?? "REGISTRO") : "REGISTRO";
      const [body, dv] = taxpayer.split("-");
      const base = { rutEmisor: body, dvEmisor: dv, ptributario: params.periodo };
      const ctx = await siiContext(c);
      if (valid(c, "query", Query).formato === "csv") {
        const exportData = {
          ...base,
          codTipoDoc: String(params.dte),
          operacion: compras ? "COMPRA" : "",
          estadoContab: compras ? estado : "",
          accionRecaptcha: compras ? "RCV_DDETC" : "RCV_DDETV",
          tokenRecaptcha: "t-o-k-e-n-web",
        };
        // The SII's own file name (it sends it after the rows, too late for the header of a streamed answer).
        const name = `RCV_${operacion}_${estado}_${taxpayer}_${params.periodo}.csv`;
        return answerInSession(
          c,
          ctx,
          taxpayer,
          auth,
          async function* (jar) {
            for await (const line of rcvRows(ctx, jar, compras ? "getDetalleCompraExport" : "getDetalleVentaExport", exportData)) {
              yield `${String(line)}\n`;
            }
          },
          {
            headers: { "content-type": "text/csv; charset=ISO-8859-1", "content-disposition": `attachment; filename="${name}"` },
            encode: (text) => encodeLatin1(text),
          },
        );
      }
      const query: DetailQuery = { compras, taxpayer, periodo: params.periodo, dte: params.dte, estado, base };
      return answerInSession(c, ctx, taxpayer, auth, (jar) => detailJson(ctx, jar, query));
    },
  );
}

interface DetailQuery {
  compras: boolean;
  taxpayer: string;
  periodo: string;
  dte: number;
  estado: string;
  base: { rutEmisor?: string; dvEmisor?: string; ptributario: string };
}

interface DetailTypes {
  types: number[];
  withoutDetail: number[];
  /** Documents per type as the summary counts them, when the summary was read. */
  counted: Map<number, number> | null;
}

/** The summary's rows of this side and state. */
async function summaryRows(ctx: SiiContext, jar: CookieJar, q: DetailQuery): Promise<Record<string, unknown>[]> {
  const operacion = q.compras ? "COMPRA" : "VENTA";
  const summary = await rcvCall(ctx, jar, "getResumen", { ...q.base, estadoContab: q.estado, operacion, busquedaInicial: true });
  return Array.isArray(summary.data) ? (summary.data as Record<string, unknown>[]) : [];
}

const countsOf = (rows: Record<string, unknown>[]) => new Map(rows.map((r) => [Number(r.rsmnTipoDocInteger), Number(r.rsmnTotDoc) || 0]));

/** The types to read (with `dte` 0: every type the summary lists with detail), and those kept only as totals. */
async function detailTypes(ctx: SiiContext, jar: CookieJar, q: DetailQuery): Promise<DetailTypes> {
  if (q.dte !== 0) return { types: [q.dte], withoutDetail: [], counted: null };
  const rows = await summaryRows(ctx, jar, q);
  return {
    types: rows.filter((r) => r.rsmnLink !== false).map((r) => Number(r.rsmnTipoDocInteger)),
    withoutDetail: rows.filter((r) => r.rsmnLink === false).map((r) => Number(r.rsmnTipoDocInteger)),
    counted: countsOf(rows),
  };
}

/**
 * Past a ceiling the synchronous detail answers no rows instead of an error (public clients: about
 * 393 documents, the transport cut at 4 MiB; crilam/mcp-sii `src/scrapers/rcvAsync.ts` header). A
 * type that came back empty is checked against the summary: if the summary counts documents, the
 * answer is a 502 that points to the asynchronous download, never an empty period.
 */
async function checkEmptyType(ctx: SiiContext, jar: CookieJar, q: DetailQuery, tipo: number, known: DetailTypes): Promise<void> {
  const counted = (known.counted ?? countsOf(await summaryRows(ctx, jar, q))).get(tipo) ?? 0;
  if (counted === 0) return;
  const side = q.compras ? "compras" : "ventas";
  const asyncPath = `/api/v1/sii/rcv/${side}/async/solicitar/${q.taxpayer}/${q.periodo}/${tipo}${q.compras ? `/${q.estado}` : ""}`;
  throw new ApiError(
    502,
    "SII_GATEWAY_ERROR",
    `The SII's synchronous detail answered no documents of type ${tipo}, but its summary counts ${counted}: the period is past what the synchronous detail serves. Use the asynchronous download (POST ${asyncPath})`,
    {
      details: {
        service: q.compras ? "rcv_getDetalleCompra" : "rcv_getDetalleVenta",
        tipo_documento: tipo,
        documentos_resumen: counted,
        async: asyncPath,
      },
    },
  );
}

/** The SII's rows of one type, as they arrive. */
function siiRows(ctx: SiiContext, jar: CookieJar, q: DetailQuery, tipo: number): AsyncGenerator<Record<string, unknown>> {
  const data = q.compras
    ? {
        ...q.base,
        codTipoDoc: String(tipo),
        operacion: "COMPRA",
        estadoContab: q.estado,
        accionRecaptcha: "RCV_DETC",
        tokenRecaptcha: "t-o-k-e-n-web",
      }
    : {
        ...q.base,
        codTipoDoc: String(tipo),
        operacion: "",
        estadoContab: "",
        accionRecaptcha: "RCV_DETV",
        tokenRecaptcha: "t-o-k-e-n-web",
      };
  return rcvRows(ctx, jar, q.compras ? "getDetalleCompra" : "getDetalleVenta", data);
}

/** The SII's rows kept to answer `sii.data` from the same read; past this a second read streams them. */
export const KEEP_RAW_CHARS = COMMIT_CHARS / 4;

/** What identifies a document: the second read must bring the same documents in the same order. */
const documentKey = (d: DetalleRow) => `${d.tipo_documento}|${d.folio}|${d.rut}|${d.monto_total}`;

/** FNV-1a over the documents' keys, in order. */
function fingerprint(hash: number, text: string): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * The detail's envelope, written as the SII's rows arrive: the normalized `documentos`, then the
 * SII's own rows in `sii.data` (documented as kept so nothing is lost). JSON cannot interleave two
 * arrays, so a period too large to hold is read from the SII twice: once for `documentos`, once for
 * `sii.data`. The second read must bring the same documents (count and fingerprint); if the
 * register changed in between, the answer is aborted rather than contradict itself.
 * `registros` follows `documentos`: it is known only at the end.
 */
async function* detailJson(ctx: SiiContext, jar: CookieJar, q: DetailQuery): AsyncGenerator<string> {
  const known = await detailTypes(ctx, jar, q);
  const head = {
    rut: q.taxpayer,
    periodo: q.periodo,
    operacion: q.compras ? "COMPRA" : "VENTA",
    estado: q.estado,
    sin_detalle: known.withoutDetail,
  };
  yield `{"success":true,"message":"OK","data":${JSON.stringify(head).slice(0, -1)},"documentos":[`;
  let count = 0;
  let print = 2166136261;
  let kept: string[] | null = [];
  let keptChars = 0;
  for (const tipo of known.types) {
    const before = count;
    for await (const raw of siiRows(ctx, jar, q, tipo)) {
      const doc = detalleRow(raw);
      print = fingerprint(print, documentKey(doc));
      yield `${count++ ? "," : ""}${JSON.stringify(doc)}`;
      if (kept) {
        const text = JSON.stringify(raw);
        keptChars += text.length;
        if (keptChars > KEEP_RAW_CHARS) kept = null;
        else kept.push(text);
      }
    }
    if (count === before) await checkEmptyType(ctx, jar, q, tipo, known);
  }
  yield `],"registros":${count},"sii":{"data":[`;
  if (kept) yield kept.join(",");
  else {
    let again = 0;
    let reprint = 2166136261;
    for (const tipo of known.types) {
      for await (const raw of siiRows(ctx, jar, q, tipo)) {
        reprint = fingerprint(reprint, documentKey(detalleRow(raw)));
        yield `${again++ ? "," : ""}${JSON.stringify(raw)}`;
      }
    }
    if (again !== count || reprint !== print) {
      throw new Error(`the SII's register changed while it was read twice (${count} documents, then ${again})`);
    }
  }
  yield `]}},"timestamp":${JSON.stringify(new Date().toISOString())}}`;
}

export function registerRcvDetalle(app: OpenAPIHono<AppEnv>): void {
  register(app, "compras");
  register(app, "ventas");
}

/**
 * POST /api/v1/sii/rcv/compras/detalle/documento/{receptor}/{periodo}/{dte}/{folio}: the purchase
 * documents of a type with that folio (suppliers may share folio numbers), in whatever state.
 */
export function registerRcvDocumento(app: OpenAPIHono<AppEnv>): void {
  const Params = pathParams({
    receptor: Rut,
    periodo: Periodo,
    dte: Dte,
    folio: z.coerce
      .number({ error: "must be a number" })
      .int()
      .positive({ error: "must be positive" })
      .openapi({ param: { name: "folio", in: "path" }, type: "integer", example: 1001 }),
  });
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/compras/detalle/documento/{receptor}/{periodo}/{dte}/{folio}",
      tags: ["RCV"],
      summary: "One purchase document of the register, by type and folio",
      request: {
        params: Params,
        query: z.object({ ambiente: Ambiente }),
        body: jsonBody(RcvAuthBody),
      },
      responses: {
        200: jsonContent(
          envelope(
            z
              .object({ documentos: z.array(Document), sii: z.object({ data: z.array(z.record(z.string(), z.unknown())) }) })
              .openapi("RcvDocumento"),
          ),
          "The matching documents",
        ),
        ...errorResponses([400, 404, 422, 502, 503]),
      },
    }),
    async (c) => {
      const { receptor, periodo, dte, folio } = valid(c, "param", Params);
      checkPeriodo(c, periodo);
      const { auth } = valid(c, "json", RcvAuthBody);
      const [body, dv] = receptor.split("-");
      const ctx = await siiContext(c);
      const raw = await withRcvSession(c, ctx, receptor, auth, async (jar) => {
        const found: Record<string, unknown>[] = [];
        const empty: string[] = [];
        for (const estado of ESTADOS) {
          const answer = await rcvCall(ctx, jar, "getDetalleCompra", {
            rutEmisor: body,
            dvEmisor: dv,
            ptributario: periodo,
            codTipoDoc: String(dte),
            operacion: "COMPRA",
            estadoContab: estado,
            accionRecaptcha: "RCV_DETC",
            tokenRecaptcha: "t-o-k-e-n-web",
          });
          const rows = Array.isArray(answer.data) ? (answer.data as Record<string, unknown>[]) : [];
          if (!rows.length) empty.push(estado);
          found.push(...rows.filter((r) => Number(r.detNroDoc) === folio));
        }
        // Not found is a 404 only if no state's detail came back empty past its ceiling.
        if (!found.length) {
          for (const estado of empty) {
            const q: DetailQuery = {
              compras: true,
              taxpayer: receptor,
              periodo,
              dte,
              estado,
              base: { rutEmisor: body, dvEmisor: dv, ptributario: periodo },
            };
            await checkEmptyType(ctx, jar, q, dte, { types: [dte], withoutDetail: [], counted: null });
          }
        }
        return found;
      });
      if (!raw.length) throw new ApiError(404, "HTTP_404", `No purchase document of type ${dte} with folio ${folio} in ${periodo}`);
      return ok(c, { documentos: detalleRows(raw), sii: { data: raw } });
    },
  );
}
