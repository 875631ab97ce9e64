// The normalizer's steps on the document's header (normalize.ts): common defaults and line
// numbers (1), the totals a type starts with (2), the other currency (7) and the payments (8),
// plus the header changes of a traslado interno and of exports.
import { type DocContext, list, NO_SALE_TYPE, node, TOTAL_DEFAULTS, type TotalsContext, totalsContext } from "./context.ts";
import { num, round } from "./numbers.ts";
import { isNode, type Node } from "./sanitize.ts";

const IVA_TOTALS = ["MntNeto", "TasaIVA", "IVA", "IVANoRet"] as const;

/** 1. Common defaults: the issue date, service and sale kinds, references numbered and dated, as the reference fills them. */
export function commonDefaults(doc: DocContext): void {
  const { dte, encabezado, idDoc, tipo, boleta, referencias, warnings, set, today } = doc;
  if (idDoc.FchEmis === undefined) set(idDoc, "FchEmis", today, "Encabezado.IdDoc.FchEmis");
  if (boleta && idDoc.IndServicio === undefined) set(idDoc, "IndServicio", 3, "Encabezado.IdDoc.IndServicio");
  if (!NO_SALE_TYPE.has(tipo) && idDoc.TpoTranVenta === undefined && [33, 34, 43, 46, 56, 61].includes(tipo)) {
    set(idDoc, "TpoTranVenta", 1, "Encabezado.IdDoc.TpoTranVenta");
  }
  if (tipo === 52 && num(idDoc.IndTraslado) === 5) copyIssuerAsReceiver(encabezado, warnings);
  const receptor = encabezado.Receptor;
  if (boleta && isNode(receptor) && typeof receptor.CorreoRecep === "string") {
    // Boletas have no CorreoRecep; the reference keeps the address as a reference line.
    referencias.push({ RazonRef: `Email receptor: ${receptor.CorreoRecep}` });
    dte.Referencia = referencias;
    delete receptor.CorreoRecep;
    warnings.push(`Encabezado.Receptor.CorreoRecep moved to Referencia[${referencias.length - 1}].RazonRef (boletas have no CorreoRecep)`);
  }
  doc.lines.forEach((line, i) => {
    line.NroLinDet = i + 1;
  });
  doc.globals.forEach((g, i) => {
    g.NroLinDR = i + 1;
  });
  referencias.forEach((r, i) => {
    r.NroLinRef = i + 1;
    // The boleta schema's Referencia has no FchRef (§1.4).
    if (r.FchRef === undefined && !boleta) set(r, "FchRef", today, `Referencia[${i}].FchRef`);
  });
}

/** Each type's `TOTAL_DEFAULTS` as entries, listed once rather than for every document. */
const DEFAULT_TOTALS = new Map(Object.entries(TOTAL_DEFAULTS).map(([tipo, totals]) => [Number(tipo), Object.entries(totals)]));
const defaultTotals = (tipo: number): [string, unknown][] => DEFAULT_TOTALS.get(tipo) ?? [];

/** 2. Totals the type starts with (§4.2); a type without IVA drops the IVA totals it was given (`EXEMPT_TYPES`). */
export function startTotals(doc: DocContext): TotalsContext {
  const { encabezado, tipo, warnings } = doc;
  const totales = node(encabezado, "Totales");
  for (const key of doc.exempt ? IVA_TOTALS : []) {
    if (totales[key] === undefined) continue;
    delete totales[key];
    warnings.push(`Encabezado.Totales.${key} removed (type ${tipo} carries no IVA)`);
  }
  for (const [key, value] of defaultTotals(tipo)) if (totales[key] === undefined) totales[key] = value;
  return totalsContext(doc, totales);
}

/** 7. Other currency (exports): each total converted at `TpoCambio` unless given, and their sum. */
export function otherCurrency(ctx: TotalsContext): void {
  const { amount, given } = ctx;
  const otra = ctx.encabezado.OtraMoneda;
  if (!isNode(otra)) return;
  const cambio = num(otra.TpoCambio) ?? 0;
  let sum = 0;
  for (const [key, target] of [
    ["MntNeto", "MntNetoOtrMnda"],
    ["MntExe", "MntExeOtrMnda"],
    ["IVA", "IVAOtrMnda"],
    ["IVANoRet", "IVANoRetOtrMnda"],
  ] as const) {
    if (!given(key)) continue;
    if (otra[target] === undefined) otra[target] = round(amount(key) * cambio, 4);
    sum += num(otra[target]) ?? 0;
  }
  if (otra.MntTotOtrMnda === undefined) otra.MntTotOtrMnda = otra.TpoMoneda === "PESO CL" ? round(sum) : round(sum, 4);
}

/** 8. Payments without an amount are for the total. */
export function payments(ctx: TotalsContext): void {
  list(ctx.idDoc, "MntPagos").forEach((pago, i) => {
    if (pago.MntPago === undefined) ctx.set(pago, "MntPago", ctx.totales.MntTotal, `Encabezado.IdDoc.MntPagos[${i}].MntPago`);
  });
}

/** Traslado interno (52 with IndTraslado 5): the receiver is the issuer itself (§1.3). */
function copyIssuerAsReceiver(encabezado: Node, warnings: string[]): void {
  const emisor = isNode(encabezado.Emisor) ? encabezado.Emisor : {};
  const receptor = encabezado.Receptor;
  if (isNode(receptor) && receptor.RUTRecep !== undefined && receptor.RUTRecep === emisor.RUTEmisor) return;
  const copy: Node = {};
  const pairs = [
    ["RUTEmisor", "RUTRecep"],
    ["RznSoc", "RznSocRecep"],
    ["GiroEmis", "GiroRecep"],
    ["Telefono", "Contacto"],
    ["CorreoEmisor", "CorreoRecep"],
    ["DirOrigen", "DirRecep"],
    ["CmnaOrigen", "CmnaRecep"],
  ] as const;
  for (const [from, to] of pairs) {
    const value = Array.isArray(emisor[from]) ? (emisor[from] as unknown[])[0] : emisor[from];
    if (value !== undefined && value !== "") copy[to] = value;
  }
  encabezado.Receptor = copy;
  warnings.push("Encabezado.Receptor copied from Encabezado.Emisor (IndTraslado 5: traslado interno)");
}

/** Exports (110-112): payment form as FmaPagExp, no CmnaRecep, sale modality 1 for goods (§1.3). */
export function exportTweaks(encabezado: Node, warnings: string[]): void {
  const idDoc = node(encabezado, "IdDoc");
  if (idDoc.FmaPago !== undefined) {
    if (num(idDoc.FmaPago) === 3 && idDoc.FmaPagExp === undefined) {
      idDoc.FmaPagExp = 21;
      warnings.push("Encabezado.IdDoc.FmaPagExp = 21 (FmaPago 3, sin costo)");
    }
    delete idDoc.FmaPago;
    warnings.push("Encabezado.IdDoc.FmaPago removed (exports use FmaPagExp)");
  }
  const receptor = encabezado.Receptor;
  if (isNode(receptor) && receptor.CmnaRecep !== undefined) {
    delete receptor.CmnaRecep;
    warnings.push("Encabezado.Receptor.CmnaRecep removed (exports have no comuna)");
  }
  if (![3, 4, 5].includes(num(idDoc.IndServicio) ?? 0)) {
    const aduana = node(node(encabezado, "Transporte"), "Aduana");
    if (aduana.CodModVenta === undefined) {
      aduana.CodModVenta = 1;
      warnings.push("Encabezado.Transporte.Aduana.CodModVenta = 1 (a firm sale of goods)");
    }
  }
}
