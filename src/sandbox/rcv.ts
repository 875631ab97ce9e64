// www4.sii.cl consdcvinternetui: the RCV's JSON facade (docs/sii-services.md §7): an envelope with
// metaData (namespace, conversationId = the session TOKEN), answers with respEstado.codRespuesta,
// and the login wall as HTML when the session is gone. Documents are generated deterministically
// per taxpayer, period and side (purchases / sales).
import type { Context } from "hono";
import { encodeLatin1 } from "../lib/latin1.ts";
import { rutCheckDigit } from "../lib/rut.ts";
import { throughOnDemand } from "../lib/streams.ts";
import { claveLoginWall } from "./pages.ts";
import { COMPRAS_COLUMNS, TIPOS_COMPRA, tipoCompraKey, VENTAS_COLUMNS } from "./rcv-columns.ts";
import { type SandboxState, sessionTokenOf } from "./state.ts";

export const FIRST_RCV_PERIOD = 201705;
const ESTADOS = ["REGISTRO", "PENDIENTE", "NO_INCLUIR", "RECLAMADO"] as const;
const TYPE_NAMES: Record<number, string> = {
  33: "Factura Electrónica",
  34: "Factura No Afecta o Exenta Electrónica",
  39: "Boleta Electrónica",
  46: "Factura de Compra Electrónica",
  56: "Nota de Débito Electrónica",
  61: "Nota de Crédito Electrónica",
};

export interface RcvDocument {
  tipo: number;
  folio: number;
  rut: string;
  razonSocial: string;
  fecha: string; // DD/MM/YYYY
  exento: number;
  neto: number;
  /** Recoverable VAT (sales: the VAT). */
  iva: number;
  /** Purchases left out (NO_INCLUIR): their VAT is all non-recoverable, code 9, as the SII's files show. */
  ivaNoRec: number;
  codigoNoRec: number | null;
  total: number;
  estado: (typeof ESTADOS)[number];
}

/** A small deterministic generator, so a period always has the same documents. */
function seeded(seed: string) {
  let h = 2166136261;
  for (const ch of seed) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return () => {
    h = Math.imul(h ^ (h >>> 15), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    h ^= h >>> 16;
    return (h >>> 0) / 4294967296;
  };
}

/** The documents of one taxpayer's side of the register in a period. */
/** Periods of the company whose register is large, for the streaming benchmark: 1 k, 10 k, 100 k documents. */
export const LARGE_PERIODS: Record<number, number> = { 201901: 1_000, 201902: 10_000, 201903: 100_000 };

/** How many documents a taxpayer's side of the register has in a period. */
export function rcvDocumentCount(rut: string, periodo: number): number {
  // The sandbox's taxpayers started trading in 2018: earlier periods are empty.
  if (periodo < 201801) return 0;
  if (periodo === CEILING_PERIOD) return 1_200;
  return (rut === "76192083-9" && LARGE_PERIODS[periodo]) || 40;
}

/** The documents one by one, generated in order: a large period is never held in memory at once. */
export function* rcvDocumentStream(rut: string, periodo: number, operacion: "COMPRA" | "VENTA"): Generator<RcvDocument> {
  const count = rcvDocumentCount(rut, periodo);
  const random = seeded(`${rut}|${periodo}|${operacion}`);
  const year = Math.floor(periodo / 100);
  const month = periodo % 100;
  const types = operacion === "COMPRA" ? [33, 33, 33, 34, 61, 56] : [33, 33, 34, 61, 39];
  for (let i = 0; i < count; i++) {
    const tipo = types[Math.floor(random() * types.length)] ?? 33;
    const base = 10_000 + Math.floor(random() * 990_000);
    const exento = tipo === 34 ? base : 0;
    const neto = tipo === 34 ? 0 : base;
    const vat = Math.round(neto * 0.19);
    const counterpart = 76_000_000 + Math.floor(random() * 999_999);
    const fecha = `${String(1 + Math.floor(random() * 28)).padStart(2, "0")}/${String(month).padStart(2, "0")}/${year}`;
    const estado =
      operacion === "VENTA" ? "REGISTRO" : (ESTADOS[Math.floor(random() * 10) < 7 ? 0 : Math.floor(random() * 4)] ?? "REGISTRO");
    // cordada/lib-cl-sii-python `src/tests/test_data/sii-rcv/RCV-compra-no_incluir-rz_leading_trailing_whitespace.csv`.
    const left = estado === "NO_INCLUIR" && vat > 0;
    yield {
      tipo,
      folio: 1000 + i,
      rut: `${counterpart}-${rutCheckDigit(String(counterpart))}`,
      razonSocial: `EMPRESA ${String.fromCharCode(65 + (counterpart % 26))}${counterpart % 1000} LIMITADA`,
      fecha,
      exento,
      neto,
      iva: left ? 0 : vat,
      ivaNoRec: left ? vat : 0,
      codigoNoRec: left ? 9 : null,
      total: exento + neto + vat,
      estado,
    };
  }
}

/** The documents of one taxpayer's side of the register in a period (deterministic). */
export function rcvDocuments(rut: string, periodo: number, operacion: "COMPRA" | "VENTA"): RcvDocument[] {
  return [...rcvDocumentStream(rut, periodo, operacion)];
}

export function answer(
  c: Context,
  body: Record<string, unknown>,
  metaData: Record<string, unknown>,
  codRespuesta: number,
  msgeRespuesta: string | null = null,
) {
  return c.json({
    ...body,
    metaData: { ...metaData, info: null, errors: null },
    respEstado: { codRespuesta, msgeRespuesta, codError: null },
  });
}

type FacadeRequest = { rut: string; periodo: number; data: Record<string, unknown>; metaData: Record<string, unknown> };
/** A JSON call of the RCV applications, its session and envelope checked. */
type SessionCall = { session: { rut: string }; data: Record<string, unknown>; metaData: Record<string, unknown> };

/** The checks of every JSON call of the RCV applications: session, envelope, conversationId. */
export async function sessionCall(c: Context, state: SandboxState, now: number): Promise<SessionCall | Response> {
  const session = state.sessionOf(c.req.header("cookie"), now);
  if (!session) return claveLoginWall();
  const envelope = (await c.req.json().catch(() => null)) as { metaData?: Record<string, unknown>; data?: Record<string, unknown> } | null;
  const metaData = envelope?.metaData;
  const data = envelope?.data;
  if (!metaData?.namespace || !metaData.conversationId || !data) return c.json({ errorMsg: "Acceso no autorizado!" });
  const token = sessionTokenOf(c.req.header("cookie"));
  if (metaData.conversationId !== token) return answer(c, { data: null }, metaData, 99, "Sesión no válida");
  return { session, data, metaData };
}

/** The checks every facade method makes: session, envelope, conversationId, taxpayer, period. */
export async function facadeRequest(c: Context, state: SandboxState, now: number): Promise<FacadeRequest | Response> {
  const call = await sessionCall(c, state, now);
  if (call instanceof Response) return call;
  const { session, data, metaData } = call;
  const rut = `${data.rutEmisor}-${String(data.dvEmisor).toUpperCase()}`;
  if (rut !== session.rut) return answer(c, { data: null }, metaData, 2, "Usuario no autorizado para consultar el contribuyente");
  const periodo = Number(data.ptributario);
  if (!(periodo >= FIRST_RCV_PERIOD))
    return answer(c, { data: null }, metaData, 99, `Periodo consultado no válido, debe ser mayor igual a ${FIRST_RCV_PERIOD}`);
  return { rut, periodo, data, metaData };
}

/**
 * The synchronous detail's ceiling: past it the SII answers no rows instead of an error. Public
 * clients found it whole up to 393 documents of a type, matching the summary (crilam/mcp-sii
 * `src/scrapers/rcv.ts`, checked against the portal), and not guaranteed past that, with the
 * transport cut at 4 MiB (`src/scrapers/rcvAsync.ts` header). The sandbox answers no rows past 393
 * documents of a type, so the gateway's switch to the asynchronous download is met (every
 * taxpayer's CEILING_PERIOD is past it); only the benchmark company's large periods keep the 4 MiB
 * cut alone, so the sizes at which the gateway streams (past 512 KiB) stay reachable.
 */
export const SYNC_DETAIL_MAX_DOCUMENTS = 393;
/** A month with more documents of a type than the synchronous detail serves, for every sandbox taxpayer. */
export const CEILING_PERIOD = 201812;
export const SYNC_DETAIL_MAX_BYTES = 4 * 1024 * 1024;

/** getDetalleCompra / getDetalleVenta: the documents of one type, streamed (a period may hold 100 k). */
export async function getDetalle(c: Context, state: SandboxState, now: number, operacion: "COMPRA" | "VENTA"): Promise<Response> {
  const request = await facadeRequest(c, state, now);
  if (request instanceof Response) return request;
  const { rut, periodo, data, metaData } = request;
  const tipo = Number(data.codTipoDoc);
  const estado = operacion === "COMPRA" ? String(data.estadoContab) : "REGISTRO";
  const matching = function* () {
    for (const d of rcvDocumentStream(rut, periodo, operacion)) if (d.estado === estado && d.tipo === tipo) yield d;
  };
  const row = (d: RcvDocument, i: number) => {
    const [rutDoc, dvDoc] = d.rut.split("-");
    const tipoCompra =
      operacion === "COMPRA" ? (state.rcvTransactionTypes.get(tipoCompraKey(rut, periodo, d.tipo, d.rut, d.folio)) ?? 1) : 1;
    return {
      dhdrCodigo: 5_000_000 + i,
      dcvCodigo: 100_000 + (periodo % 1000),
      // The SII leaves the row's state null (apigatewaycl/apigateway-api-client-python `apigatewaycl/api_client/sii/rcv.py`).
      dcvEstadoContab: null,
      detCodigo: 7_000_000 + i,
      detTipoDoc: d.tipo,
      detRutDoc: Number(rutDoc),
      detDvDoc: dvDoc,
      detRznSoc: d.razonSocial,
      detNroDoc: d.folio,
      detFchDoc: d.fecha,
      detFecRecepcion: `${d.fecha} 10:15:00`,
      detMntExe: d.exento,
      detMntNeto: d.neto,
      // A NO_INCLUIR purchase: the VAT under the non-recoverable keys (sergiokml/PortalFacturas `Datum`), the
      // recoverable one empty as the SII's CSV has it (null here: inferred, no public JSON sample shows one).
      detMntIVA: d.codigoNoRec ? null : d.iva,
      detMntIVANoRec: d.codigoNoRec ? d.ivaNoRec : null,
      detMntCodNoRec: d.codigoNoRec,
      detMntTotal: d.total,
      detTasaImp: d.neto ? 19 : 0,
      detAnulado: null,
      detTipoTransaccion: tipoCompra,
      descTipoTransaccion: TIPOS_COMPRA[tipoCompra] ?? "Del Giro",
    };
  };
  const docs = matching();
  const first = docs.next();
  if (first.done) return answer(c, { data: [] }, metaData, 3, "No existen documentos para el periodo consultado");
  // Past the ceiling: no rows and no error, as public clients report it (the code is inferred).
  const large = rut === "76192083-9" && LARGE_PERIODS[periodo] !== undefined;
  let bytes = 0;
  let k = 0;
  for (const d of matching()) {
    bytes += JSON.stringify(row(d, k++)).length + 1;
    if (bytes > SYNC_DETAIL_MAX_BYTES || (!large && k > SYNC_DETAIL_MAX_DOCUMENTS)) {
      return answer(c, { data: [], esDocPapel: false }, metaData, 0);
    }
  }
  let i = 0;
  // The same bytes as `answer` would write, the rows a few hundred at a time.
  const rest = JSON.stringify({
    esDocPapel: false,
    metaData: { ...metaData, info: null, errors: null },
    respEstado: { codRespuesta: 0, msgeRespuesta: null, codError: null },
  });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`{"data":[${JSON.stringify(row(first.value, i++))}`));
    },
    pull(controller) {
      const chunk: string[] = [];
      for (let k = 0; k < 500; k++) {
        const next = docs.next();
        if (next.done) {
          controller.enqueue(encoder.encode(`${chunk.join("")}],${rest.slice(1)}`));
          controller.close();
          return;
        }
        chunk.push(`,${JSON.stringify(row(next.value, i++))}`);
      }
      controller.enqueue(encoder.encode(chunk.join("")));
    },
  });
  return new Response(body, { headers: { "content-type": "application/json" } });
}

/** getResumen: per document type, counts and amounts of one side of the register. */
export async function getResumen(c: Context, state: SandboxState, now: number): Promise<Response> {
  const request = await facadeRequest(c, state, now);
  if (request instanceof Response) return request;
  const { rut, periodo, data, metaData } = request;
  const operacion = data.operacion === "VENTA" ? "VENTA" : "COMPRA";
  const estado = operacion === "COMPRA" ? String(data.estadoContab) : "REGISTRO";
  // Totals per type, summed as the documents are generated (a period may hold 100 k).
  const totals = new Map<number, { documentos: number; exento: number; neto: number; iva: number; ivaNoRec: number; total: number }>();
  for (const d of rcvDocumentStream(rut, periodo, operacion)) {
    if (d.estado !== estado) continue;
    const t = totals.get(d.tipo) ?? { documentos: 0, exento: 0, neto: 0, iva: 0, ivaNoRec: 0, total: 0 };
    t.documentos++;
    t.exento += d.exento;
    t.neto += d.neto;
    t.iva += d.iva;
    t.ivaNoRec += d.ivaNoRec;
    t.total += d.total;
    totals.set(d.tipo, t);
  }
  if (!totals.size) return answer(c, { data: [], totDocRes: 0 }, metaData, 3, "No existen documentos para el periodo consultado");
  const types = [...totals.keys()].sort((a, b) => a - b);
  const generated = types.map((tipo) => {
    const of = totals.get(tipo) ?? { documentos: 0, exento: 0, neto: 0, iva: 0, ivaNoRec: 0, total: 0 };
    const sum = (key: "exento" | "neto" | "iva" | "ivaNoRec" | "total") => of[key];
    return {
      dcvCodigo: 100_000 + (periodo % 1000),
      rsmnCodigo: 900_000 + tipo,
      rsmnTipoDocInteger: tipo,
      dcvNombreTipoDoc: TYPE_NAMES[tipo] ?? String(tipo),
      dcvTipoIngresoDoc: tipo === 39 ? "RESUMEN" : "DET_ELE",
      rsmnLink: tipo !== 39,
      rsmnMntExe: sum("exento"),
      rsmnMntNeto: sum("neto"),
      rsmnMntIVA: sum("iva"),
      rsmnMntIVANoRec: sum("ivaNoRec"),
      rsmnIVAUsoComun: 0,
      dcvOperacion: null,
      rsmnMntTotal: sum("total"),
      rsmnEstadoContab: null,
      rsmnTotDoc: of.documentos,
      rsmnTotalRutEmisor: null,
    };
  });
  // Sales summaries the taxpayer entered (boletas and the like) stand in for the generated ones.
  const manual = operacion === "VENTA" ? [...(state.rcvSummaries.get(`${rut}|${periodo}`) ?? new Map())] : [];
  const rows = [
    ...generated.filter((r) => !manual.some(([tipo]) => tipo === r.rsmnTipoDocInteger)),
    ...manual.map(([tipo, e]) => ({
      ...generated[0],
      rsmnCodigo: 900_000 + tipo,
      rsmnTipoDocInteger: tipo,
      dcvNombreTipoDoc: TYPE_NAMES[tipo] ?? String(tipo),
      dcvTipoIngresoDoc: "RESUMEN",
      rsmnLink: false,
      rsmnMntExe: e.mntExe,
      rsmnMntNeto: e.mntNeto,
      rsmnMntIVA: e.mntIva,
      rsmnMntTotal: e.mntTotal,
      rsmnTotDoc: e.totDoc,
    })),
  ].sort((a, b) => a.rsmnTipoDocInteger - b.rsmnTipoDocInteger);
  const [rutBody, dv] = rut.split("-");
  return answer(
    c,
    {
      data: rows,
      totDocRes: rows.reduce((sum, r) => sum + r.rsmnTotDoc, 0),
      tieneEmisorAgresivo: false,
      verF29: true,
      dataCabecera: {
        dcvPcarga: 1,
        dcvRutEmisor: Number(rutBody),
        dcvDvEmisor: dv,
        dcvPtributario: periodo,
        dcvOperacion: operacion,
        dcvCodigo: 100_000 + (periodo % 1000),
      },
    },
    metaData,
    0,
  );
}

/**
 * A document's "other taxes": every ninth folio has two, so its CSV record spans two lines, the
 * second with an empty `Nro` (the shape of cordada/lib-cl-sii-python
 * `src/tests/test_data/sii-rcv/RCV-venta-extra-empty-impuestos-rows.csv`: codes 27 at 10 % and 271 at 18 %).
 */
function otherTaxes(d: RcvDocument): { codigo: number; valor: number; tasa: number }[] {
  if (d.folio % 9 !== 0 || !d.neto) return [];
  return [
    { codigo: 27, valor: Math.round(d.neto * 0.1), tasa: 10 },
    { codigo: 271, valor: Math.round(d.neto * 0.18), tasa: 18 },
  ];
}

/** The detail CSV lines (header first) of one side, type (0 = all) and state, as the exports and async files carry them. */
function* detailLines(rut: string, periodo: number, operacion: "COMPRA" | "VENTA", tipo: number, estado: string): Generator<string> {
  yield operacion === "COMPRA" ? COMPRAS_COLUMNS : VENTAS_COLUMNS;
  const width = (operacion === "COMPRA" ? COMPRAS_COLUMNS : VENTAS_COLUMNS).split(";").length;
  let i = 0;
  for (const d of rcvDocumentStream(rut, periodo, operacion)) {
    if (d.estado !== estado || (tipo !== 0 && d.tipo !== tipo) || d.tipo === 39) continue;
    i++;
    const cells =
      operacion === "COMPRA"
        ? [
            i,
            d.tipo,
            d.codigoNoRec ? "No Corresp. Incluir" : "Del Giro",
            d.rut,
            d.razonSocial,
            d.folio,
            d.fecha,
            `${d.fecha} 10:15:00`,
            "",
            d.exento,
            d.neto,
            d.codigoNoRec ? "" : d.iva,
            d.codigoNoRec ? d.ivaNoRec : "",
            d.codigoNoRec ?? "",
            d.total,
          ]
        : [i, d.tipo, "Del Giro", d.rut, d.razonSocial, d.folio, d.fecha, `${d.fecha} 10:15:00`, "", "", d.exento, d.neto, d.iva, d.total];
    const [first, ...more] = otherTaxes(d);
    // The tax columns are the last three; rows end with a `;` (docs/sii-services.md §7.5).
    const line = (start: (string | number)[], tax?: { codigo: number; valor: number; tasa: number }) => {
      const row: (string | number)[] = [...start, ...Array(width - 3 - start.length).fill("")];
      row.push(tax?.codigo ?? "", tax?.valor ?? "", tax?.tasa ?? "");
      return `${row.join(";")};`;
    };
    yield line(cells, first);
    for (const tax of more) yield line(["", d.tipo, "Del Giro", d.rut, d.razonSocial, d.folio, d.fecha], tax);
  }
}

/** Documents in a file: lines with a `Nro` (continuation lines are not documents). */
function countDocuments(...args: Parameters<typeof detailLines>): number {
  let n = 0;
  let header = true;
  for (const line of detailLines(...args)) {
    if (header) header = false;
    else if (!line.startsWith(";")) n++;
  }
  return n;
}

/** How long a sandbox download request takes to move through CREADO → EN PROCESO → TERMINADO. */
export const ASYNC_STEP_MS = 1000;

function jobState(created: number, now: number): string {
  return now - created < ASYNC_STEP_MS ? "CREADO" : now - created < 2 * ASYNC_STEP_MS ? "EN PROCESO" : "TERMINADO";
}

const stamp = (ms: number) => {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${p(d.getUTCDate())}/${p(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
};

/** caProceso: the side as `_C_`/`_V_` (crilam/mcp-sii `src/scrapers/rcvAsync.ts`, `CONSDCV_C_RG` in its tests); the state codes other than RG are inferred. */
const PROCESS_STATES: Record<string, string> = { REGISTRO: "RG", PENDIENTE: "PD", NO_INCLUIR: "NI", RECLAMADO: "RC" };

/**
 * getCtrlAsync: `generaCtrl` true creates a download request; either way the answer lists every
 * request of the taxpayer, whatever its period, side and type (public clients filter them by
 * caPeriodo, caProceso and caTipoDoc: crilam/mcp-sii `src/scrapers/rcvAsync.ts` `filtrar`).
 */
export async function getCtrlAsync(c: Context, state: SandboxState, now: number): Promise<Response> {
  const request = await facadeRequest(c, state, now);
  if (request instanceof Response) return request;
  const { rut, periodo, data, metaData } = request;
  const operacion = data.operacion === "VENTA" ? "VENTA" : "COMPRA";
  const tipo = Number(data.codTipoDoc);
  const estado = operacion === "COMPRA" ? String(data.estadoContab || "REGISTRO") : "REGISTRO";
  if (data.generaCtrl === true) {
    state.rcvJobs.push({ caId: 800_000 + state.rcvJobs.length + 1, rut, periodo, tipo, operacion, estado, created: now });
  }
  const [rutBody, dv] = rut.split("-");
  const rows = state.rcvJobs
    .filter((j) => j.rut === rut)
    .map((j) => {
      const caEstado = jobState(j.created, now);
      const done = caEstado === "TERMINADO";
      return {
        caProceso: `CONSDCV_${j.operacion === "COMPRA" ? "C" : "V"}_${PROCESS_STATES[j.estado] ?? "RG"}`,
        caRutEmisor: Number(rutBody),
        caDvEmisor: dv,
        caId: j.caId,
        caIdBLOB: done ? `BLOB${j.caId}` : "SIN-BLOB",
        caPeriodo: j.periodo,
        caTipoDoc: j.tipo,
        caEstado,
        caNumLineas: done ? countDocuments(j.rut, j.periodo, j.operacion, j.tipo, j.estado) : 0,
        caFileSize: 0,
        caTmstCreado: stamp(j.created),
        caTmstEnProceso: caEstado === "CREADO" ? null : stamp(j.created + ASYNC_STEP_MS),
        caTmstTerminado: done ? stamp(j.created + 2 * ASYNC_STEP_MS) : null,
        caDescError: null,
      };
    });
  return answer(c, { data: rows }, metaData, 0);
}

/**
 * obtenerArchivoBLOB/{caIdBLOB}/{rutUsuario}/{rutEmisor}/{caId}: the finished request's gzipped
 * CSV. Both RUTs go without check digit (crilam/mcp-sii `src/scrapers/rcvAsync.ts`, verified live);
 * anything else is answered with the login page (inferred: what the SII sends then is not public).
 */
export async function obtenerArchivoBlob(c: Context, state: SandboxState, now: number): Promise<Response> {
  const session = state.sessionOf(c.req.header("cookie"), now);
  if (!session) return claveLoginWall();
  const caId = Number(c.req.param("caId"));
  const job = state.rcvJobs.find((j) => j.caId === caId && `BLOB${j.caId}` === c.req.param("blob") && j.rut === session.rut);
  if (!job || jobState(job.created, now) !== "TERMINADO") return claveLoginWall();
  // The user is the session's (its holder, or the RUT_NS the login set).
  const users = [session.holder.split("-")[0], session.rut.split("-")[0]];
  if (c.req.param("rutEmisor") !== job.rut.split("-")[0] || !users.includes(c.req.param("rutUsuario") ?? "")) return claveLoginWall();
  // Streamed: a 100 k-document file is produced and compressed a chunk at a time.
  const lines = detailLines(job.rut, job.periodo, job.operacion, job.tipo, job.estado);
  const csv = (function* () {
    for (;;) {
      const chunk: string[] = [];
      for (let k = 0; k < 500; k++) {
        const next = lines.next();
        if (next.done) break;
        chunk.push(next.value);
      }
      if (!chunk.length) return;
      yield encodeLatin1(`${chunk.join("\n")}\n`);
    }
  })();
  return new Response(throughOnDemand(csv, new CompressionStream("gzip")), { headers: { "content-type": "application/octet-stream" } });
}

/** getDetalleCompraExport / getDetalleVentaExport: the detail as CSV lines inside JSON; codTipoDoc 0 is every type. */
export async function getDetalleExport(c: Context, state: SandboxState, now: number, operacion: "COMPRA" | "VENTA"): Promise<Response> {
  const request = await facadeRequest(c, state, now);
  if (request instanceof Response) return request;
  const { rut, periodo, data, metaData } = request;
  const tipo = Number(data.codTipoDoc);
  const estado = operacion === "COMPRA" ? String(data.estadoContab) : "REGISTRO";
  const lines = [...detailLines(rut, periodo, operacion, tipo, estado)];
  const found = lines.length > 1;
  const nombreArchivo = `RCV_${operacion}_${estado}_${rut}_${periodo}.csv`;
  return answer(
    c,
    { data: lines, nombreArchivo },
    metaData,
    found ? 0 : 3,
    found ? null : "No existen documentos para el periodo consultado",
  );
}
