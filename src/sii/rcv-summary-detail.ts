// The sales summaries kept as totals (receipts and the like) with the days the SII lists for
// receipts (39) and vouchers (48): `getResumen` names the types, `obtieneListaBoletasMes` gives
// the days (docs/sii-services.md §7.9).
//
// What is read of a day, and why only that: the one public reader of this answer
// (tomasleblancu/fizko, backend/app/integrations/sii/extractors/dtes.py) keeps the entries of
// `data.boletas` that are objects with `dia` and names no other field of them; the month's
// `totalDocumentos`, `montoTotal`, `montoNeto`, `montoIva`, `montoExento` it names are on `data`,
// not on the days. So a day answers its `dia` (checked: a whole day of the period, each day once)
// and the entry exactly as the SII sent it under `sii`; per-day counts, folios or amounts under
// guessed names are not read (inferred names came back as zeros when the SII names them otherwise).
import type { CookieJar } from "./cookies.ts";
import { formatChanged } from "./format-changed.ts";
import type { SiiContext } from "./http.ts";
import { type BoletasMes, DAILY_TYPES, rcvDailyReceipts, rcvSummary, resumenRows } from "./rcv.ts";

export interface SummaryDay {
  /** The day of the month, as the SII names it (`dia`). */
  dia: number;
  /** The SII's day entry as received: its other fields are not public, so none is read. */
  sii: Record<string, unknown>;
}

/** The days of one type's month, each checked: `dia` a whole number within the period, never twice. */
export function summaryDays(month: BoletasMes, periodo: string, tipo: number): SummaryDay[] {
  const year = Number(periodo.slice(0, 4));
  const monthNumber = Number(periodo.slice(4, 6));
  const lastDay = new Date(Date.UTC(year, monthNumber, 0)).getUTCDate();
  const seen = new Set<number>();
  // The month's `totalDocumentos` (a name fizko reads) counting receipts while no entry has `dia`:
  // the day entries are there under another shape, not absent.
  if (month.documentos > 0 && month.dias.length === 0) {
    throw formatChanged("rcv_boletas", `type ${tipo}: the month counts ${month.documentos} documents but no day entry has \`dia\``);
  }
  return month.dias.map((entry) => {
    const raw = entry.dia;
    const dia = typeof raw === "number" ? raw : typeof raw === "string" && /^\s*\d{1,2}\s*$/.test(raw) ? Number(raw) : Number.NaN;
    const excerpt = JSON.stringify(entry).slice(0, 200);
    if (!Number.isInteger(dia) || dia < 1 || dia > lastDay) {
      throw formatChanged("rcv_boletas", `type ${tipo}: day ${JSON.stringify(raw)} is not a day of ${periodo}`, excerpt);
    }
    if (seen.has(dia)) throw formatChanged("rcv_boletas", `type ${tipo}: day ${dia} is listed twice`, excerpt);
    seen.add(dia);
    return { dia, sii: entry };
  });
}

export async function salesSummaryDetail(
  ctx: SiiContext,
  jar: CookieJar,
  rut: string,
  periodo: string,
): Promise<{ resumenes: Record<string, unknown>[]; sii: Record<string, unknown> }> {
  const summary = await rcvSummary(ctx, jar, { rut, periodo, operacion: "VENTA", estado: "REGISTRO" });
  const totalsOnly = resumenRows(summary).filter((r) => r.tipo_ingreso === "RESUMEN");
  const months = new Map<number, BoletasMes>();
  for (const r of totalsOnly) {
    if ((DAILY_TYPES as readonly number[]).includes(r.tipo_documento)) {
      months.set(r.tipo_documento, await rcvDailyReceipts(ctx, jar, rut, periodo, r.tipo_documento));
    }
  }
  const resumenes = totalsOnly.map((r) => {
    const month = months.get(r.tipo_documento);
    return {
      tipo_documento: r.tipo_documento,
      documentos: r.documentos,
      monto_exento: r.monto_exento,
      monto_neto: r.monto_neto,
      monto_iva: r.monto_iva,
      monto_total: r.monto_total,
      dias: month ? summaryDays(month, periodo, r.tipo_documento) : [],
    };
  });
  const { metaData: _meta, ...resumen } = summary;
  const boletas = Object.fromEntries([...months].map(([tipo, month]) => [String(tipo), month]));
  return { resumenes, sii: { resumen, boletas } };
}
