// The normalizer's steps on the document's lines (normalize.ts): each line's amount and the totals
// they add to (3), then the global discounts and surcharges on those totals (4).
import { beyond, NUMBER_BOUNDS, type NumberBound, rangeText } from "./bounds.ts";
import type { TotalsContext } from "./context.ts";
import { num, round } from "./numbers.ts";
import { isNode, type Node } from "./sanitize.ts";

const LINE_NUMBERS = ["QtyItem", "PrcItem", "MontoItem", "DescuentoPct", "DescuentoMonto", "RecargoPct", "RecargoMonto", "IndExe"];

/** 3. Lines: each line's amount (quantity × price, less discounts, plus surcharges), summed into the totals not given. */
export function normalizeLines(ctx: TotalsContext): void {
  const { boleta, exempt, totales, decimals, given, set } = ctx;
  let neto = 0;
  let exento = 0;
  let noFacturable = 0;
  let bruto = 0;
  ctx.lines.forEach((line, i) => {
    completeLine(ctx, line, `Detalle[${i}]`);
    const monto = num(line.MontoItem) ?? 0;
    // On a type without IVA, other IndExe values add to no total (as the reference's NormalizeDetalleTrait).
    if (line.IndExe === 1) exento += monto;
    else if (line.IndExe === 2) noFacturable += monto;
    else if (exempt === undefined) {
      if (boleta) bruto += monto;
      else neto += monto;
    }
  });
  const fill = (key: string, value: number) => {
    if (given(key) || value === 0) return;
    const total = round(value, decimals);
    // A line beyond range is named already: its sum is then beyond too.
    if (outOfRange(key, total) && ctx.problems.length === 0)
      ctx.problems.push({
        path: "Detalle",
        message: `the lines' MontoItem add up to ${total}, beyond the SII's range for ${key}, ${range(key)}`,
      });
    set(totales, key, total, `Encabezado.Totales.${key}`);
  };
  fill("MntExe", exento);
  fill("MontoNF", noFacturable);
  if (boleta) fill("MntTotal", bruto + exento);
  else fill("MntNeto", neto);
}

/** One line's numbers, exemption, item code, quantity and amount, as the reference's NormalizeDetalleTrait fills them. */
function completeLine(ctx: TotalsContext, line: Node, path: string): void {
  const { exempt, decimals, set } = ctx;
  for (const key of LINE_NUMBERS) {
    const value = num(line[key]);
    if (value !== undefined) line[key] = value;
  }
  if (exempt && (exempt.forceLines ? line.IndExe !== 1 : line.IndExe === undefined)) set(line, "IndExe", 1, `${path}.IndExe`);
  if (line.CdgItem !== undefined && !isNode(line.CdgItem) && !Array.isArray(line.CdgItem)) {
    line.CdgItem = { TpoCodigo: line.Retenedor ? "CPCS" : "INT1", VlrCodigo: String(line.CdgItem) };
  }
  const prc = num(line.PrcItem);
  if (prc !== undefined && line.QtyItem === undefined) set(line, "QtyItem", 1, `${path}.QtyItem`);
  if (line.MontoItem === undefined) {
    let monto = prc === undefined ? 0 : round((num(line.QtyItem) ?? 1) * prc, decimals);
    const dPct = num(line.DescuentoPct);
    if (dPct) line.DescuentoMonto = round((monto * dPct) / 100, decimals);
    monto -= num(line.DescuentoMonto) ?? 0;
    const rPct = num(line.RecargoPct);
    if (rPct) line.RecargoMonto = round((monto * rPct) / 100, decimals);
    monto += num(line.RecargoMonto) ?? 0;
    monto = round(monto, decimals);
    // Each within its range, quantity × price (and a surcharge) may not be: the fields sent are named.
    if (outOfRange("MontoItem", monto)) {
      for (const key of ["QtyItem", "PrcItem", "RecargoPct", "RecargoMonto"].filter((k) => line[k] !== undefined))
        ctx.problems.push({
          path: `${path}.${key}`,
          message: `makes the line's amount ${monto} (QtyItem × PrcItem, less discounts, plus surcharges), beyond the SII's range for MontoItem, ${range("MontoItem")}`,
        });
    }
    set(line, "MontoItem", monto, `${path}.MontoItem`);
  }
}

// The amounts these steps compute (MontoItem, MntNeto, MntExe, MontoNF, MntTotal) are all MontoType.
const outOfRange = (key: string, value: number) => beyond(value, NUMBER_BOUNDS[key] as NumberBound);
const range = (key: string) => rangeText(key, NUMBER_BOUNDS[key] as NumberBound);

/** 4. Global discounts and surcharges, before IVA: each on the total its `IndExeDR` names (exports: the exempt one). */
export function globalDiscounts(ctx: TotalsContext): void {
  const { tipo, exportacion, totales, decimals, amount, set } = ctx;
  ctx.globals.forEach((g) => {
    const ind = num(g.IndExeDR);
    const key = exportacion || ind === 1 ? "MntExe" : ind === 2 ? "MontoNF" : tipo === 39 ? "MntTotal" : "MntNeto";
    if (totales[key] === undefined) return;
    const base = amount(key);
    const valor = num(g.ValorDR) ?? 0;
    const value = g.TpoValor === "%" ? round((valor / 100) * base, decimals) : round(valor, decimals);
    set(totales, key, round(g.TpoMov === "R" ? base + value : base - value, decimals), `Encabezado.Totales.${key}`);
    if (tipo === 41 && key === "MntExe") totales.MntTotal = totales.MntExe;
  });
}
