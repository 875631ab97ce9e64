// The liquidación-factura (43): the commissions and other charges (`Comisiones`) the consignee
// takes off what it sold on the consignor's behalf, and their totals.
//
// Rules (no reference normalizer has them: LibreDTE's `NormalizeLiquidacionFacturaJob.php` is a
// TODO, and its 21.10.5 `lib/Sii/Dte.php` only lets `Comisiones` through untouched), read off the
// SII's DTE_v10.xsd (`Liquidacion`: `Comisiones` 0..20 lines, "obligatoria para Liquidaciones
// Factura", and their sums in `Totales.Comisiones`):
// - each line: `NroLinCom` its position (1..20), `TipoMovim` C (commission) or O (other charge),
//   `ValComNeto` and `ValComExe` required (`ValComExe` 0 when absent), `ValComIVA` optional;
// - a line with `TasaComision` and no `ValComNeto`: the rate of the net sold (`MntNeto` of the
//   lines), rounded (inferred: the schema calls it the commission's rate, the base is not stated);
// - `ValComIVA`, when absent: `ValComNeto` × `TasaIVA` (the document's, 19 by default), rounded
//   (the commission is a taxed service of the consignee's);
// - `Totales.Comisiones`: the sums of the lines' `ValComNeto`, `ValComExe` and `ValComIVA`;
// - `MntTotal` = MntNeto + MntExe + IVA − (ValComNeto + ValComExe + ValComIVA): what the consignor
//   is owed once the consignee's charges are taken off (inferred from the schema's layout, where
//   the commissions sit in `Totales` just before `MntTotal`; a total the document brings is kept).
import { num, round } from "./numbers.ts";
import { isNode, type Node } from "./sanitize.ts";

/** At most 20 lines (DTE_v10.xsd `Comisiones` maxOccurs, `NroLinCom` 1..20). */
export const MAX_COMMISSIONS = 20;

export interface Commissions {
  /** ValComNeto + ValComExe + ValComIVA of all the lines: what MntTotal is short of. */
  total: number;
}

/**
 * Completes `dte.Comisiones` and `Totales.Comisiones` of a 43 in place; `neto` is the net sold (the
 * lines' MntNeto) and `tasaIva` the document's rate. `set` records each value written as a warning.
 */
export function normalizeCommissions(
  dte: Node,
  totales: Node,
  neto: number,
  tasaIva: number,
  set: (parent: Node, key: string, value: unknown, path: string) => void,
): Commissions {
  const given = dte.Comisiones;
  const lines = (given === undefined ? [] : Array.isArray(given) ? given : [given]).filter(isNode);
  if (given !== undefined) dte.Comisiones = lines;
  if (!lines.length) return { total: commissionsOf(totales) };
  const sums = { ValComNeto: 0, ValComExe: 0, ValComIVA: 0 };
  lines.forEach((line, i) => {
    const path = `Comisiones[${i}]`;
    line.NroLinCom = i + 1;
    if (line.TipoMovim === undefined) set(line, "TipoMovim", "C", `${path}.TipoMovim`);
    const tasa = num(line.TasaComision);
    if (num(line.ValComNeto) === undefined)
      set(line, "ValComNeto", tasa === undefined ? 0 : round((neto * tasa) / 100), `${path}.ValComNeto`);
    if (num(line.ValComExe) === undefined) set(line, "ValComExe", 0, `${path}.ValComExe`);
    const valNeto = num(line.ValComNeto) ?? 0;
    if (num(line.ValComIVA) === undefined && valNeto !== 0) set(line, "ValComIVA", round((valNeto * tasaIva) / 100), `${path}.ValComIVA`);
    sums.ValComNeto += valNeto;
    sums.ValComExe += num(line.ValComExe) ?? 0;
    sums.ValComIVA += num(line.ValComIVA) ?? 0;
  });
  if (!isNode(totales.Comisiones)) set(totales, "Comisiones", sums, "Encabezado.Totales.Comisiones");
  return { total: commissionsOf(totales) };
}

/** The sum of `Totales.Comisiones` (given or computed). */
function commissionsOf(totales: Node): number {
  const c = totales.Comisiones;
  if (!isNode(c)) return 0;
  return (num(c.ValComNeto) ?? 0) + (num(c.ValComExe) ?? 0) + (num(c.ValComIVA) ?? 0);
}
