// The normalizer's steps that end in the document's total (normalize.ts): a liquidación-factura's
// commissions (4b), the additional taxes and retentions (5), then IVA and the total (6).
import { list, TASA_IVA, type TotalsContext } from "./context.ts";
import { exportTweaks } from "./header.ts";
import { normalizeCommissions } from "./liquidacion.ts";
import { num, round } from "./numbers.ts";
import type { Node } from "./sanitize.ts";
import { ADDITIONAL_TAXES } from "./taxes.ts";

/** 4b. A liquidación-factura's commissions and other charges (liquidacion.ts); returns what is taken off its total. */
export function commissions(ctx: TotalsContext): number {
  const { dte, tipo, totales, amount, set } = ctx;
  return tipo === 43 ? normalizeCommissions(dte, totales, amount("MntNeto"), num(totales.TasaIVA) ?? TASA_IVA, set).total : 0;
}

/** 5. Additional taxes and retentions, from the lines that carry a code (none on 34, 39, 41); returns them. */
export function additionalTaxes(ctx: TotalsContext): Node[] {
  const { tipo, totales, decimals, set } = ctx;
  const retenciones: Node[] = [];
  if ([34, 39, 41].includes(tipo)) return retenciones;
  const bases = new Map<number, number>();
  for (const line of ctx.lines) {
    const code = num(line.CodImpAdic);
    if (code !== undefined) bases.set(code, (bases.get(code) ?? 0) + (num(line.MontoItem) ?? 0));
  }
  const supplied = list(totales, "ImptoReten");
  for (const [code, base] of bases) {
    const tax = ADDITIONAL_TAXES[code];
    const existing = supplied.find((t) => num(t.TipoImp) === code);
    const rate = num(existing?.TasaImp) ?? tax?.rate ?? 0;
    retenciones.push({ TipoImp: code, TasaImp: rate, MontoImp: num(existing?.MontoImp) ?? round((base * rate) / 100, decimals) });
  }
  if (retenciones.length) set(totales, "ImptoReten", retenciones, "Encabezado.Totales.ImptoReten");
  else delete totales.ImptoReten;
  return retenciones;
}

/** 6. IVA and the total (boletas: the net taken out of the gross), then what the type drops or adds to its header. */
export function ivaAndTotal(ctx: TotalsContext, comisiones: number, retenciones: Node[]): void {
  const { tipo, totales, given } = ctx;
  if (ctx.boleta) boletaIva(ctx);
  else ivaAndTotalOfFactura(ctx, comisiones, retenciones);
  if ((tipo === 56 || tipo === 61) && !given("MntNeto")) delete totales.TasaIVA;
  if (ctx.exportacion) exportTweaks(ctx.encabezado, ctx.warnings);
}

/** A boleta's lines include IVA: its net and IVA come out of the total (unless IndMntNeto 2 says the lines are net). */
function boletaIva(ctx: TotalsContext): void {
  const { idDoc, totales, amount, given, set } = ctx;
  const total = amount("MntTotal") - amount("MntExe");
  if (num(idDoc.IndMntNeto) !== 2 && total !== 0 && (!given("MntNeto") || !given("IVA"))) {
    const netoBoleta = round(total / (1 + TASA_IVA / 100));
    set(totales, "MntNeto", netoBoleta, "Encabezado.Totales.MntNeto");
    set(totales, "IVA", total - netoBoleta, "Encabezado.Totales.IVA");
  }
}

/** Other types: IVA on the net (or out of it when MntBruto), the total with retentions, CredEC and MontoPeriodo. */
function ivaAndTotalOfFactura(ctx: TotalsContext, comisiones: number, retenciones: Node[]): void {
  const { idDoc, totales, decimals, amount, given, set } = ctx;
  // MntBruto is an IdDoc flag in the schema (line amounts include IVA); Totales is accepted too.
  if ((num(idDoc.MntBruto) === 1 || num(totales.MntBruto) === 1) && given("MntNeto") && !given("IVA")) {
    const total = amount("MntNeto");
    const netoBruto = round(total / (1 + TASA_IVA / 100));
    set(totales, "MntNeto", netoBruto, "Encabezado.Totales.MntNeto");
    set(totales, "IVA", total - netoBruto, "Encabezado.Totales.IVA");
  } else if (given("MntNeto") && !given("IVA")) {
    set(totales, "IVA", round((amount("MntNeto") * (num(totales.TasaIVA) ?? TASA_IVA)) / 100), "Encabezado.Totales.IVA");
  }
  // A total the document brings already has its taxes, retentions and credits in it.
  const computeTotal = !given("MntTotal");
  if (computeTotal) {
    const total = (given("MntNeto") ? amount("MntNeto") + amount("IVA") + amount("MntExe") : amount("MntExe")) - comisiones;
    set(totales, "MntTotal", round(total, decimals), "Encabezado.Totales.MntTotal");
  }
  for (const r of computeTotal ? retenciones : []) {
    const montoImp = num(r.MontoImp) ?? 0;
    if (ADDITIONAL_TAXES[num(r.TipoImp) ?? 0]?.kind === "R") {
      totales.MntTotal = round(amount("MntTotal") - montoImp, decimals);
      if (montoImp !== amount("IVA")) set(totales, "IVANoRet", amount("IVA") - montoImp, "Encabezado.Totales.IVANoRet");
    } else {
      totales.MntTotal = round(amount("MntTotal") + montoImp, decimals);
    }
  }
  if (totales.CredEC === true) {
    // Construction companies' special credit: 65% of the IVA, taken off the total.
    const credito = round(amount("IVA") * 0.65);
    set(totales, "CredEC", credito, "Encabezado.Totales.CredEC");
    if (computeTotal) set(totales, "MntTotal", amount("MntTotal") - credito, "Encabezado.Totales.MntTotal");
  }
  if (given("MontoNF") && totales.MontoPeriodo === undefined)
    set(totales, "MontoPeriodo", amount("MntTotal") + amount("MontoNF"), "Encabezado.Totales.MontoPeriodo");
}
