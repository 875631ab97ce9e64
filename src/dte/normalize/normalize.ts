// A DTE as JSON with the SII's tag names, completed and computed the way the reference normalizer
// (LibreDTE) does (dte-engine §4): defaults, line amounts, discounts and surcharges, additional
// taxes and retentions, IVA (boletas: net from gross), totals, other currency. Pure: no I/O.
import { ADDITIONAL_TAXES } from "./taxes.ts";

export type Node = Record<string, unknown>;

export interface Normalized {
  dte: Node;
  /** What was filled in or computed, one line each, naming the field. */
  warnings: string[];
}

const BOLETAS = new Set([39, 41]);
const EXPORTS = new Set([110, 111, 112]);
const NO_SALE_TYPE = new Set([39, 41, 110, 111, 112]);
const TASA_IVA = 19;

/** Totals each type starts with: 0 = present as zero; absent = only when computed (§4.2). */
const TOTAL_DEFAULTS: Record<number, Node> = {
  33: { MntNeto: 0, TasaIVA: TASA_IVA, IVA: 0, MntTotal: 0 },
  34: { MntTotal: 0 },
  39: { MntTotal: 0 },
  41: { MntExe: 0, MntTotal: 0 },
  46: { MntNeto: 0, TasaIVA: TASA_IVA, IVA: 0, MntTotal: 0 },
  52: { MntNeto: 0, TasaIVA: TASA_IVA, IVA: 0, MntTotal: 0 },
  56: { MntNeto: 0, MntExe: 0, TasaIVA: TASA_IVA, MntTotal: 0 },
  61: { MntNeto: 0, MntExe: 0, TasaIVA: TASA_IVA, MntTotal: 0 },
  110: { MntExe: 0, MntTotal: 0 },
  111: { MntExe: 0, MntTotal: 0 },
  112: { MntExe: 0, MntTotal: 0 },
};

export const SUPPORTED_TYPES = Object.keys(TOTAL_DEFAULTS).map(Number);

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);
const node = (parent: Node, key: string): Node => {
  if (!isNode(parent[key])) parent[key] = {};
  return parent[key] as Node;
};
const list = (parent: Node, key: string): Node[] => {
  const value = parent[key];
  const items = value === undefined ? [] : Array.isArray(value) ? value : [value];
  const nodes = items.filter(isNode);
  if (value !== undefined) parent[key] = nodes;
  return nodes;
};
/** A number from a number or a numeric string; undefined otherwise. */
const num = (value: unknown): number | undefined => {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return undefined;
};
/** Half away from zero, to `decimals` places (PHP's round, which the reference uses). */
export const round = (value: number, decimals = 0): number => {
  const factor = 10 ** decimals;
  return (Math.sign(value) * Math.round(Math.abs(value) * factor)) / factor;
};

export function normalizeDte(input: Node, today: string): Normalized {
  const dte = structuredClone(input);
  const warnings: string[] = [];
  const set = (parent: Node, key: string, value: unknown, path: string) => {
    parent[key] = value;
    warnings.push(`${path} = ${JSON.stringify(value)}`);
  };

  const encabezado = node(dte, "Encabezado");
  const idDoc = node(encabezado, "IdDoc");
  const tipo = num(idDoc.TipoDTE) ?? 0;
  idDoc.TipoDTE = tipo;
  const boleta = BOLETAS.has(tipo);
  const exportacion = EXPORTS.has(tipo);

  // 1. Common defaults.
  if (idDoc.FchEmis === undefined) set(idDoc, "FchEmis", today, "Encabezado.IdDoc.FchEmis");
  if (boleta && idDoc.IndServicio === undefined) set(idDoc, "IndServicio", 3, "Encabezado.IdDoc.IndServicio");
  if (!NO_SALE_TYPE.has(tipo) && idDoc.TpoTranVenta === undefined && [33, 34, 46, 56, 61].includes(tipo)) {
    set(idDoc, "TpoTranVenta", 1, "Encabezado.IdDoc.TpoTranVenta");
  }
  const lines = list(dte, "Detalle");
  const globals = list(dte, "DscRcgGlobal");
  const referencias = list(dte, "Referencia");
  lines.forEach((line, i) => {
    line.NroLinDet = i + 1;
  });
  globals.forEach((g, i) => {
    g.NroLinDR = i + 1;
  });
  referencias.forEach((r, i) => {
    r.NroLinRef = i + 1;
    if (r.FchRef === undefined) set(r, "FchRef", today, `Referencia[${i}].FchRef`);
  });

  // 2. Totals the type starts with.
  const totales = node(encabezado, "Totales");
  for (const [key, value] of Object.entries(TOTAL_DEFAULTS[tipo] ?? {})) if (totales[key] === undefined) totales[key] = value;
  const foreign = exportacion && typeof totales.TpoMoneda === "string" && totales.TpoMoneda !== "PESO CL";
  const decimals = foreign ? 4 : 0;
  const amount = (key: string) => num(totales[key]) ?? 0;
  const given = (key: string) => (num(totales[key]) ?? 0) !== 0;

  // 3. Lines.
  let neto = 0;
  let exento = 0;
  let noFacturable = 0;
  let bruto = 0;
  lines.forEach((line, i) => {
    const path = `Detalle[${i}]`;
    for (const key of ["QtyItem", "PrcItem", "MontoItem", "DescuentoPct", "DescuentoMonto", "RecargoPct", "RecargoMonto", "IndExe"]) {
      const value = num(line[key]);
      if (value !== undefined) line[key] = value;
    }
    if (exportacion && line.IndExe !== 1) set(line, "IndExe", 1, `${path}.IndExe`);
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
      set(line, "MontoItem", round(monto, decimals), `${path}.MontoItem`);
    }
    const monto = num(line.MontoItem) ?? 0;
    if (line.IndExe === 1) exento += monto;
    else if (line.IndExe === 2) noFacturable += monto;
    else if (boleta) bruto += monto;
    else neto += monto;
  });
  const fill = (key: string, value: number) => {
    if (!given(key) && value !== 0) set(totales, key, round(value, decimals), `Encabezado.Totales.${key}`);
  };
  fill("MntExe", exento);
  fill("MontoNF", noFacturable);
  if (boleta) fill("MntTotal", bruto + exento);
  else fill("MntNeto", neto);

  // 4. Global discounts and surcharges, before IVA.
  globals.forEach((g) => {
    const ind = num(g.IndExeDR);
    const key = exportacion || ind === 1 ? "MntExe" : ind === 2 ? "MontoNF" : tipo === 39 ? "MntTotal" : "MntNeto";
    if (totales[key] === undefined) return;
    const base = amount(key);
    const valor = num(g.ValorDR) ?? 0;
    const value = g.TpoValor === "%" ? round((valor / 100) * base, decimals) : round(valor, decimals);
    set(totales, key, round(g.TpoMov === "R" ? base + value : base - value, decimals), `Encabezado.Totales.${key}`);
    if (tipo === 41 && key === "MntExe") totales.MntTotal = totales.MntExe;
  });

  // 5. Additional taxes and retentions, from the lines that carry a code.
  const retenciones: Node[] = [];
  if (![34, 39, 41].includes(tipo)) {
    const bases = new Map<number, number>();
    for (const line of lines) {
      const code = num(line.CodImpAdic);
      if (code !== undefined) bases.set(code, (bases.get(code) ?? 0) + (num(line.MontoItem) ?? 0));
    }
    const supplied = list(encabezado.Totales as Node, "ImptoReten");
    for (const [code, base] of bases) {
      const tax = ADDITIONAL_TAXES[code];
      const existing = supplied.find((t) => num(t.TipoImp) === code);
      const rate = num(existing?.TasaImp) ?? tax?.rate ?? 0;
      retenciones.push({ TipoImp: code, TasaImp: rate, MontoImp: num(existing?.MontoImp) ?? round((base * rate) / 100, decimals) });
    }
    if (retenciones.length) set(totales, "ImptoReten", retenciones, "Encabezado.Totales.ImptoReten");
    else delete totales.ImptoReten;
  }

  // 6. IVA and the total.
  if (boleta) {
    const total = amount("MntTotal") - amount("MntExe");
    if (num(idDoc.IndMntNeto) !== 2 && total !== 0 && (!given("MntNeto") || !given("IVA"))) {
      const netoBoleta = round(total / (1 + TASA_IVA / 100));
      set(totales, "MntNeto", netoBoleta, "Encabezado.Totales.MntNeto");
      set(totales, "IVA", total - netoBoleta, "Encabezado.Totales.IVA");
    }
  } else {
    if (num(totales.MntBruto) === 1 && given("MntNeto")) {
      const total = amount("MntNeto");
      const netoBruto = round(total / (1 + TASA_IVA / 100));
      set(totales, "MntNeto", netoBruto, "Encabezado.Totales.MntNeto");
      set(totales, "IVA", total - netoBruto, "Encabezado.Totales.IVA");
    } else if (given("MntNeto") && !given("IVA")) {
      set(totales, "IVA", round((amount("MntNeto") * (num(totales.TasaIVA) ?? TASA_IVA)) / 100), "Encabezado.Totales.IVA");
    }
    if (!given("MntTotal")) {
      const total = given("MntNeto") ? amount("MntNeto") + amount("IVA") + amount("MntExe") : amount("MntExe");
      set(totales, "MntTotal", round(total, decimals), "Encabezado.Totales.MntTotal");
    }
    for (const r of retenciones) {
      const montoImp = num(r.MontoImp) ?? 0;
      if (ADDITIONAL_TAXES[num(r.TipoImp) ?? 0]?.kind === "R") {
        totales.MntTotal = round(amount("MntTotal") - montoImp, decimals);
        if (montoImp !== amount("IVA")) set(totales, "IVANoRet", amount("IVA") - montoImp, "Encabezado.Totales.IVANoRet");
      } else {
        totales.MntTotal = round(amount("MntTotal") + montoImp, decimals);
      }
    }
    if (given("MontoNF")) set(totales, "MontoPeriodo", amount("MntTotal") + amount("MontoNF"), "Encabezado.Totales.MontoPeriodo");
  }
  if ((tipo === 56 || tipo === 61) && !given("MntNeto")) delete totales.TasaIVA;

  // 7. Other currency (exports).
  const otra = encabezado.OtraMoneda;
  if (isNode(otra)) {
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
  return { dte, warnings };
}
