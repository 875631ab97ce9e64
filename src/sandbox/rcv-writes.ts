// The RCV writes and the summary detail, as the gateway's inferred contract has them
// (src/sii/rcv-inferred.ts): the sandbox answers the same envelope and respEstado codes.
import type { Context } from "hono";
import { answer, facadeRequest, rcvDocuments } from "./rcv.ts";
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

export const actualizarTipoTransaccion: Handler = async (c, state, now) => {
  const request = await facadeRequest(c, state, now);
  if (request instanceof Response) return request;
  const { rut, periodo, data, metaData } = request;
  const purchases = rcvDocuments(rut, periodo, "COMPRA");
  const docs = Array.isArray(data.documentos) ? (data.documentos as Record<string, unknown>[]) : [];
  for (const doc of docs) {
    const found = purchases.find(
      (p) => p.tipo === Number(doc.detTipoDoc) && p.folio === Number(doc.detNroDoc) && p.rut === `${doc.detRutDoc}-${doc.detDvDoc}`,
    );
    if (!found)
      return answer(
        c,
        { data: null },
        metaData,
        2,
        `Documento no encontrado en el registro: tipo ${doc.detTipoDoc} folio ${doc.detNroDoc} emisor ${doc.detRutDoc}-${doc.detDvDoc}`,
      );
  }
  for (const doc of docs) {
    state.rcvTransactionTypes.set(`${rut}|${periodo}|${doc.detTipoDoc}|${doc.detRutDoc}|${doc.detNroDoc}`, Number(doc.detTipoTransaccion));
  }
  return answer(c, { data: { actualizados: docs.length } }, metaData, 0, "Tipo de transacción actualizado");
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
