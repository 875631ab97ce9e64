// What each part of a printout says, as text: the PDF and the ESC/POS receipt print the same
// words and amounts (docs/dte-engine.md §6.1). The totals come in the order they add up: each
// component with its sign, then the TOTAL they make, then what informs without adding to it.
import { ADDITIONAL_TAXES } from "../normalize/taxes.ts";
import { countryLabel } from "./countries.ts";
import type { GlobalAdjustment, Issuer, Line, PrintedDocument, Receiver, Reference } from "./model.ts";
import { money, pesos } from "./money.ts";

export interface AmountRow {
  label: string;
  value: number;
  /** The value as printed, with its currency. */
  text: string;
}

export interface TotalsBlock {
  /** Neto, exento, IVA, each additional tax (+) or retention (−), credits and commissions (−): they sum to `total`. */
  components: AmountRow[];
  total: AmountRow;
  /** Amounts that inform without adding to the total: IVA's parts, the IVA not withheld, the period's and what to pay. */
  after: AmountRow[];
}

const rowsOf = (moneda: string | null, entries: [string, number | null][]): AmountRow[] =>
  entries.flatMap(([label, value]) => (value === null ? [] : [{ label, value, text: money(value, moneda) }]));

export function totalsBlock(doc: PrintedDocument): TotalsBlock {
  const t = doc.totales;
  const components = rowsOf(t.moneda, [
    ["Neto", t.neto],
    ["Exento", t.exento],
    [`IVA ${pesos(t.tasa_iva ?? 19)}%`, t.iva],
    ...t.impuestos.map((i): [string, number] => {
      const known = ADDITIONAL_TAXES[i.tipo];
      const name = known ? `${known.name} (${i.tipo})` : `Impuesto adicional ${i.tipo}`;
      return [`${name}${i.tasa === null ? "" : ` ${pesos(i.tasa)}%`}`, known?.kind === "R" ? -i.monto : i.monto];
    }),
    ["Crédito 65% empresas constructoras", t.credito_constructoras === null ? null : -t.credito_constructoras],
    ["Garantía por depósito de envases", t.garantia_envases],
    ["Comisiones y otros cargos", t.comisiones === null ? null : -t.comisiones],
  ]);
  const [total] = rowsOf(t.moneda, [["TOTAL", t.total]]) as [AmountRow];
  const after = rowsOf(t.moneda, [
    ["IVA propio", t.iva_propio],
    ["IVA de terceros", t.iva_terceros],
    ["IVA no retenido", t.iva_no_retenido],
    ["Monto no facturable", t.no_facturable],
    ["Total del período", t.periodo],
    ["Saldo anterior", t.saldo_anterior],
    ["Valor a pagar", t.a_pagar],
  ]);
  return { components, total, after };
}

/** The other-currency block of an export (OtraMoneda): its title and its amounts in that currency. */
export function otherCurrencyBlock(doc: PrintedDocument): { title: string; rows: AmountRow[] } | null {
  const o = doc.otra_moneda;
  if (!o) return null;
  const rate = o.tipo_cambio === null ? "" : `, tipo de cambio ${pesos(o.tipo_cambio)}`;
  return {
    title: `Otra moneda: ${o.moneda}${rate}`,
    rows: rowsOf(o.moneda, [
      ["Neto", o.neto],
      ["Exento", o.exento],
      ["IVA", o.iva],
      ["Total", o.total],
    ]),
  };
}

/** A global discount or surcharge: what it is, and its value (`5%`, or `- $ 1.000` off). */
export function adjustmentLine(g: GlobalAdjustment, moneda: string | null): { text: string; value: string } {
  const kind = g.tipo === "R" ? "Recargo global" : "Descuento global";
  const scope = g.exento === "1" ? " (exento)" : g.exento === "2" ? " (no facturable)" : "";
  const value = g.unidad === "%" ? `${pesos(g.valor)}%` : money(g.tipo === "R" ? g.valor : -g.valor, moneda);
  return { text: `${kind}${g.glosa ? `: ${g.glosa}` : ""}${scope}`, value };
}

/** A line's discount and surcharge: `- 9.198 (10%)`, `+ 500`; empty when it has neither. */
export function lineAdjustment(line: Line): string {
  const part = (sign: string, amount: number | null, pct: number | null) =>
    amount ? `${sign} ${pesos(amount)}${pct ? ` (${pesos(pct)}%)` : ""}` : "";
  return [part("-", line.descuento, line.descuento_pct), part("+", line.recargo, line.recargo_pct)].filter(Boolean).join(" ");
}

/** `Orden de Compra N° OC-77 del 2026-12-01: razón`, the colon only before a use or a reason. */
export function referenceText(ref: Reference): string {
  const why = [ref.uso, ref.razon].filter(Boolean).join(", ");
  return `${ref.nombre || "Documento"} N° ${ref.folio}${ref.fecha ? ` del ${ref.fecha}` : ""}${why ? `: ${why}` : ""}`;
}

/** The issuer's optional fields, one line each, when present. */
export function issuerExtras(e: Issuer): string[] {
  const sucursal = [e.sucursal, e.cdg_sii_sucur ? `código SII ${e.cdg_sii_sucur}` : ""].filter(Boolean).join(", ");
  return [
    e.telefonos.length ? `Teléfono: ${e.telefonos.join(" / ")}` : "",
    e.correo ? `Correo: ${e.correo}` : "",
    e.actecos.length ? `Actividad económica: ${e.actecos.join(", ")}` : "",
    sucursal ? `Sucursal: ${sucursal}` : "",
  ].filter(Boolean);
}

/** The receiver's fields as label and value, the empty ones left out. */
export function receiverFields(r: Receiver): [string, string][] {
  const fields: [string, string][] = [
    ["Señor(es)", r.nombre],
    ["R.U.T.", r.rut],
    ["Giro", r.giro],
    ["Dirección", [r.direccion, r.comuna, r.ciudad].filter(Boolean).join(", ")],
    ["Dirección postal", r.direccion_postal],
    ["Contacto", r.contacto],
    ["Correo", r.correo],
    ["Identificación", r.extranjero?.num_id ?? ""],
    ["Nacionalidad", r.extranjero?.nacionalidad ? countryLabel(r.extranjero.nacionalidad) : ""],
  ];
  return fields.filter(([, value]) => value);
}

/** The transfer of goods: its kind (IndTraslado) and the Transporte block, as label and value. */
export function transferFields(doc: PrintedDocument): [string, string][] {
  const t = doc.transporte;
  const chofer = t ? [t.nombre_chofer, t.rut_chofer ? `R.U.T. ${t.rut_chofer}` : ""].filter(Boolean).join(", ") : "";
  const fields: [string, string][] = [
    ["Tipo de traslado", doc.traslado ? `${doc.traslado.codigo}: ${doc.traslado.nombre}` : ""],
    ["Patente", t?.patente ?? ""],
    ["R.U.T. transportista", t?.rut_transportista ?? ""],
    ["Chofer", chofer],
    ["Destino", t ? [t.direccion, t.comuna, t.ciudad].filter(Boolean).join(", ") : ""],
    ["País receptor", t?.pais_receptor ? countryLabel(t.pais_receptor) : ""],
    ["País de destino", t?.pais_destino ? countryLabel(t.pais_destino) : ""],
  ];
  return fields.filter(([, value]) => value);
}
