// The RCV writes and the summary detail. The purchase type change answers as devlas-cl/dte-sii
// `SiiPortalAuth.js` reads it (`data: "OK"`); the summaries follow the gateway's inferred contract
// (src/sii/rcv-inferred.ts) with the facade's envelope and respEstado codes.
import type { Context } from "hono";
import { claveLoginWall } from "./pages.ts";
import { answer, facadeRequest, rcvDocuments, TIPOS_COMPRA, tipoCompraKey } from "./rcv.ts";
import type { SandboxState } from "./state.ts";

export interface SummaryEntry {
  totDoc: number;
  mntExe: number;
  mntNeto: number;
  mntIva: number;
  mntTotal: number;
  dias?: Record<string, unknown>[];
}

const key = (rut: string, periodo: number) => `${rut}|${periodo}`;

function summaries(state: SandboxState, rut: string, periodo: number): Map<number, SummaryEntry> {
  let entries = state.rcvSummaries.get(key(rut, periodo));
  if (!entries) {
    entries = new Map();
    state.rcvSummaries.set(key(rut, periodo), entries);
  }
  return entries;
}

const entryOf = (row: Record<string, unknown>): SummaryEntry => ({
  totDoc: Number(row.totDoc),
  mntExe: Number(row.mntExe),
  mntNeto: Number(row.mntNeto),
  mntIva: Number(row.mntIva),
  mntTotal: Number(row.mntTotal),
});

type Handler = (c: Context, state: SandboxState, now: number) => Promise<Response>;

/**
 * complementoscvui …/facadeServiceCompCompraService/cambiaTipoCompra: one purchase's type
 * (fields: devlas-cl/dte-sii `SiiPortalAuth.js` `cambiarTipoCompra`). `data: "OK"` is the public
 * confirmation; the refusal's shape (respEstado code 2 and a message, `data` null) is inferred.
 */
export const cambiaTipoCompra: Handler = async (c, state, now) => {
  const session = state.sessionOf(c.req.header("cookie"), now);
  if (!session) return claveLoginWall();
  const envelope = (await c.req.json().catch(() => null)) as { metaData?: Record<string, unknown>; data?: Record<string, unknown> } | null;
  const metaData = envelope?.metaData;
  const data = envelope?.data;
  if (!metaData?.namespace || !metaData.conversationId || !data) return c.json({ errorMsg: "Acceso no autorizado!" });
  const token = /(?:^|;\s*)TOKEN=([^;]+)/.exec(c.req.header("cookie") ?? "")?.[1];
  if (metaData.conversationId !== token) return answer(c, { data: null }, metaData, 99, "Sesión no válida");
  const refuse = (message: string) => answer(c, { data: null }, metaData, 2, message);
  if (`${data.rut}-${String(data.dv).toUpperCase()}` !== session.rut) return refuse("Usuario no autorizado para el contribuyente");
  if (data.operacion !== "COMPRA") return refuse("Operación no válida");
  const periodo = Number(data.periodoTributario);
  const tipoCompra = Number(data.tipoCompra);
  if (!TIPOS_COMPRA[tipoCompra]) return refuse(`Tipo de compra no válido: ${data.tipoCompra}`);
  const emisor = `${data.rutContraparte}-${String(data.dvContraparte).toUpperCase()}`;
  const found = rcvDocuments(session.rut, periodo, "COMPRA").find(
    (p) => p.tipo === Number(data.tipoDocumento) && p.folio === Number(data.numeroDocumento) && p.rut === emisor,
  );
  if (!found) {
    return refuse(`Documento no encontrado en el registro: tipo ${data.tipoDocumento} folio ${data.numeroDocumento} emisor ${emisor}`);
  }
  state.rcvTransactionTypes.set(tipoCompraKey(session.rut, periodo, found.tipo, found.rut, found.folio), tipoCompra);
  return answer(c, { data: "OK" }, metaData, 0);
};

export const ingresarResumen: Handler = async (c, state, now) => {
  const request = await facadeRequest(c, state, now);
  if (request instanceof Response) return request;
  const { rut, periodo, data, metaData } = request;
  const entries = summaries(state, rut, periodo);
  const rows = Array.isArray(data.resumenes) ? (data.resumenes as Record<string, unknown>[]) : [];
  for (const row of rows) entries.set(Number(row.codTipoDoc), entryOf(row));
  return answer(c, { data: { ingresados: rows.length } }, metaData, 0, "Resumen ingresado");
};

export const eliminarResumen: Handler = async (c, state, now) => {
  const request = await facadeRequest(c, state, now);
  if (request instanceof Response) return request;
  const { rut, periodo, data, metaData } = request;
  const entries = summaries(state, rut, periodo);
  const tipos = Array.isArray(data.tiposDoc) ? data.tiposDoc.map(Number) : [];
  const deleted = tipos.filter((t) => entries.delete(t));
  if (!deleted.length) return answer(c, { data: null }, metaData, 2, "No existe resumen para los tipos de documento indicados");
  return answer(c, { data: { eliminados: deleted } }, metaData, 0, "Resumen eliminado");
};

export const ingresarBoletasDiarias: Handler = async (c, state, now) => {
  const request = await facadeRequest(c, state, now);
  if (request instanceof Response) return request;
  const { rut, periodo, data, metaData } = request;
  const dias = Array.isArray(data.dias) ? (data.dias as Record<string, unknown>[]) : [];
  const sum = (k: keyof SummaryEntry) => dias.reduce((s, d) => s + Number(d[k]), 0);
  summaries(state, rut, periodo).set(Number(data.codTipoDoc), {
    totDoc: sum("totDoc"),
    mntExe: sum("mntExe"),
    mntNeto: sum("mntNeto"),
    mntIva: sum("mntIva"),
    mntTotal: sum("mntTotal"),
    dias,
  });
  return answer(c, { data: { dias: dias.length } }, metaData, 0, "Detalle de boletas ingresado");
};

export const getDetalleResumen: Handler = async (c, state, now) => {
  const request = await facadeRequest(c, state, now);
  if (request instanceof Response) return request;
  const { rut, periodo, metaData } = request;
  const rows = [...summaries(state, rut, periodo)]
    .sort(([a], [b]) => a - b)
    .map(([codTipoDoc, e]) => ({ codTipoDoc, ...e, dias: e.dias ?? [] }));
  if (!rows.length) return answer(c, { data: [] }, metaData, 3, "No existen resúmenes para el periodo");
  return answer(c, { data: rows }, metaData, 0);
};
