// The RCV writes and the daily receipts (complementoscvui and the facade). The purchase type
// change answers as devlas-cl/dte-sii `SiiPortalAuth.js` reads it (`data: "OK"`); the daily
// receipts' read as tomasleblancu/fizko `backend/app/integrations/sii/extractors/dtes.py` reads
// `obtieneListaBoletasMes`; the summaries and
// the daily receipts' write follow the gateway's inferred contract (src/sii/rcv-inferred.ts).
import type { Context } from "hono";
import { answer, facadeRequest, rcvDocuments, sessionCall } from "./rcv.ts";
import { TIPOS_COMPRA, tipoCompraKey } from "./rcv-columns.ts";
import type { SummaryEntry } from "./records.ts";
import type { SandboxState } from "./state.ts";

export type { SummaryEntry } from "./records.ts";

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

type ComplementoRequest = { rut: string; data: Record<string, unknown>; metaData: Record<string, unknown> };

/** The checks of a complementoscvui call: session, envelope, conversationId, the taxpayer's `rut`/`dv`. */
async function complementoRequest(c: Context, state: SandboxState, now: number): Promise<ComplementoRequest | Response> {
  const call = await sessionCall(c, state, now);
  if (call instanceof Response) return call;
  const { session, data, metaData } = call;
  if (`${data.rut}-${String(data.dv).toUpperCase()}` !== session.rut) {
    return answer(c, { data: null }, metaData, 2, "Usuario no autorizado para el contribuyente");
  }
  return { rut: session.rut, data, metaData };
}

/**
 * complementoscvui …/facadeServiceCompCompraService/cambiaTipoCompra: one purchase's type
 * (fields: devlas-cl/dte-sii `SiiPortalAuth.js` `cambiarTipoCompra`). `data: "OK"` is the public
 * confirmation; the refusal's shape (respEstado code 2 and a message, `data` null) is inferred.
 */
export const cambiaTipoCompra: Handler = async (c, state, now) => {
  const request = await complementoRequest(c, state, now);
  if (request instanceof Response) return request;
  const { rut, data, metaData } = request;
  const refuse = (message: string) => answer(c, { data: null }, metaData, 2, message);
  if (data.operacion !== "COMPRA") return refuse("Operación no válida");
  const periodo = Number(data.periodoTributario);
  const tipoCompra = Number(data.tipoCompra);
  if (!TIPOS_COMPRA[tipoCompra]) return refuse(`Tipo de compra no válido: ${data.tipoCompra}`);
  const emisor = `${data.rutContraparte}-${String(data.dvContraparte).toUpperCase()}`;
  const found = rcvDocuments(rut, periodo, "COMPRA").find(
    (p) => p.tipo === Number(data.tipoDocumento) && p.folio === Number(data.numeroDocumento) && p.rut === emisor,
  );
  if (!found) {
    return refuse(`Documento no encontrado en el registro: tipo ${data.tipoDocumento} folio ${data.numeroDocumento} emisor ${emisor}`);
  }
  state.rcvTransactionTypes.set(tipoCompraKey(rut, periodo, found.tipo, found.rut, found.folio), tipoCompra);
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

/** A day's entry as the gateway's inferred write sends it (src/sii/rcv-inferred.ts `dayEntry`). */
const dayTotal = (dias: Record<string, unknown>[], key: string) => dias.reduce((sum, d) => sum + Number(d[key] ?? 0), 0);

/** complementoscvui …/facadeServiceBoletasDiarias/ingresarDetalleBoletasDiarias (inferred): a period's days of one type. */
export const ingresarBoletasDiarias: Handler = async (c, state, now) => {
  const request = await complementoRequest(c, state, now);
  if (request instanceof Response) return request;
  const { rut, data, metaData } = request;
  const periodo = Number(data.periodo);
  const dias = Array.isArray(data.dias) ? (data.dias as Record<string, unknown>[]) : [];
  summaries(state, rut, periodo).set(Number(data.tipoDocumento), {
    totDoc: dayTotal(dias, "totalDocumentos"),
    mntExe: dayTotal(dias, "montoExento"),
    mntNeto: dayTotal(dias, "montoNeto"),
    mntIva: dayTotal(dias, "montoIva"),
    mntTotal: dayTotal(dias, "montoTotal"),
    dias,
  });
  return answer(c, { data: { dias: dias.length } }, metaData, 0, "Detalle de boletas ingresado");
};

/**
 * complementoscvui …/facadeServiceBoletasDiarias/obtieneListaBoletasMes: `data.boletas` (a day per
 * entry, with other values mixed in, as tomasleblancu/fizko's extractor notes) and the month's
 * totals. Days come from the entered detail, else from the period's generated receipts; the day
 * entries' fields other than `dia`, and respEstado, are inferred.
 */
export const obtieneListaBoletasMes: Handler = async (c, state, now) => {
  const request = await complementoRequest(c, state, now);
  if (request instanceof Response) return request;
  const { rut, data, metaData } = request;
  const periodo = Number(data.periodo);
  const tipo = Number(data.tipoDocumento);
  // An entered summary without days has none; with no summary entered, the generated receipts' days.
  const entered = summaries(state, rut, periodo).get(tipo);
  let dias = entered ? (entered.dias ?? []) : undefined;
  if (!dias) {
    const byDay = new Map<number, Record<string, number>>();
    for (const d of rcvDocuments(rut, periodo, "VENTA")) {
      if (d.tipo !== tipo) continue;
      const dia = Number(d.fecha.slice(0, 2));
      const day = byDay.get(dia) ?? {
        dia,
        totalDocumentos: 0,
        folioInicial: d.folio,
        folioFinal: d.folio,
        montoExento: 0,
        montoNeto: 0,
        montoIva: 0,
        montoTotal: 0,
      };
      day.totalDocumentos = (day.totalDocumentos ?? 0) + 1;
      day.folioInicial = Math.min(day.folioInicial ?? d.folio, d.folio);
      day.folioFinal = Math.max(day.folioFinal ?? d.folio, d.folio);
      day.montoExento = (day.montoExento ?? 0) + d.exento;
      day.montoNeto = (day.montoNeto ?? 0) + d.neto;
      day.montoIva = (day.montoIva ?? 0) + d.iva;
      day.montoTotal = (day.montoTotal ?? 0) + d.total;
      byDay.set(dia, day);
    }
    dias = [...byDay.values()].sort((a, b) => Number(a.dia) - Number(b.dia));
  }
  const boletas = dias.length ? [...dias, null] : [];
  return answer(
    c,
    {
      data: {
        boletas,
        totalDocumentos: dayTotal(dias, "totalDocumentos"),
        montoTotal: dayTotal(dias, "montoTotal"),
        montoNeto: dayTotal(dias, "montoNeto"),
        montoIva: dayTotal(dias, "montoIva"),
        montoExento: dayTotal(dias, "montoExento"),
      },
    },
    metaData,
    0,
  );
};
