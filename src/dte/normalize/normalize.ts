// A DTE as JSON with the SII's tag names, completed and computed the way the reference normalizer
// (LibreDTE) does (docs/dte-engine.md §4): defaults, line amounts, discounts and surcharges, additional
// taxes and retentions, IVA (boletas: net from gross), totals, other currency; text, RUTs, dates
// and numbers sanitized before and after (sanitize.ts). Pure: no I/O.
import { DteError } from "../errors.ts";
import { normalizeCommissions } from "./liquidacion.ts";
import { num, round } from "./numbers.ts";
import { type FieldProblem, isNode, type Node, sanitizeDte } from "./sanitize.ts";
import { ADDITIONAL_TAXES } from "./taxes.ts";

export type { Node };

export interface Normalized {
  dte: Node;
  /** What was filled in, computed, cleaned or cut, one line each, naming the field. */
  warnings: string[];
}

export interface NormalizeOptions {
  /** Where the document sits in the request, for error paths (default `dte`; e.g. `dte[2]`). */
  at?: string;
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
  43: { MntNeto: 0, TasaIVA: TASA_IVA, IVA: 0, MntTotal: 0 },
  46: { MntNeto: 0, TasaIVA: TASA_IVA, IVA: 0, MntTotal: 0 },
  52: { MntNeto: 0, TasaIVA: TASA_IVA, IVA: 0, MntTotal: 0 },
  56: { MntNeto: 0, MntExe: 0, TasaIVA: TASA_IVA, MntTotal: 0 },
  61: { MntNeto: 0, MntExe: 0, TasaIVA: TASA_IVA, MntTotal: 0 },
  110: { MntExe: 0, MntTotal: 0 },
  111: { MntExe: 0, MntTotal: 0 },
  112: { MntExe: 0, MntTotal: 0 },
};

export const SUPPORTED_TYPES = Object.keys(TOTAL_DEFAULTS).map(Number);

/**
 * Types that carry no IVA. A line without `IndExe` is exempt (`IndExe` 1); on exports every line is,
 * whatever it says. `MntNeto`, `TasaIVA`, `IVA` and `IVANoRet` never appear: none is computed, and
 * given ones are removed.
 *
 * | type    | line without IndExe | IndExe given       | totals                                  |
 * |---------|---------------------|--------------------|-----------------------------------------|
 * | 34      | exempt (1)          | kept (2 → MontoNF) | MntExe, MntTotal, MontoNF, MontoPeriodo |
 * | 41      | exempt (1)          | kept (2 → MontoNF) | MntExe, MntTotal, MontoNF               |
 * | 110–112 | exempt (1)          | forced to 1        | TpoMoneda, MntExe, MntTotal             |
 *
 * Sources: LibreDTE (libredte-lib-core) `src/Package/Billing/Component/Document/Entity/TipoDocumento.php`:
 * `isExento()` is 34, 41 and exports, and `getDefaultTasaIVA()` gives them no IVA rate ("documentos
 * exentos y de exportación sin IVA"); its fixture `034_005_item_exento_con_item_no_facturable` keeps
 * an `IndExe` 2 line as MontoNF. The SII's DTE_v10.xsd: an export's `Totales` holds only `TpoMoneda`,
 * `MntExe` and `MntTotal`.
 */
const EXEMPT_TYPES: Record<number, { forceLines: boolean }> = {
  34: { forceLines: false },
  41: { forceLines: false },
  110: { forceLines: true },
  111: { forceLines: true },
  112: { forceLines: true },
};
const IVA_TOTALS = ["MntNeto", "TasaIVA", "IVA", "IVANoRet"] as const;

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
/** Field errors listed in one answer; the rest are counted (`details.errors_total`), as for the request's shape. */
const MAX_PROBLEMS = 100;

/** 400 VALIDATION_ERROR naming each field that cannot be fixed (paths prefixed with `at` unless it is empty). */
export function invalidDocument(problems: FieldProblem[], at: string): DteError {
  const errors = problems
    .slice(0, MAX_PROBLEMS)
    .map((p) => ({ path: at ? `${at}.${p.path}` : p.path, location: "body" as const, message: p.message }));
  const first = errors[0] as { path: string; message: string };
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  const details = problems.length > errors.length ? { errors_total: problems.length } : undefined;
  return new DteError("invalid_document", `${first.path} ${first.message}${more}`, errors, details);
}

/**
 * Objects and lists nested deeper than any SII document (its deepest JSON path is ~5 levels; the
 * XML guard allows 64): copying or walking them recursively would overflow the stack (a 500).
 */
export const MAX_JSON_DEPTH = 64;

/** The path of a value nested deeper than `MAX_JSON_DEPTH`, or null; iterative, so any depth is safe to ask about. */
export function tooDeepPath(value: unknown, at: string): string | null {
  // Paths are written only for the value found too deep: most documents have none.
  interface Visit {
    value: unknown;
    depth: number;
    parent: Visit | null;
    key: string;
    inList: boolean;
  }
  const pathOf = (visit: Visit): string =>
    visit.parent === null ? at : visit.inList ? `${pathOf(visit.parent)}[${visit.key}]` : `${pathOf(visit.parent)}.${visit.key}`;
  const stack: Visit[] = [{ value, depth: 0, parent: null, key: "", inList: false }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (typeof item.value !== "object" || item.value === null) continue;
    if (item.depth >= MAX_JSON_DEPTH) return pathOf(item);
    const inList = Array.isArray(item.value);
    const object = item.value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const child = object[key];
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth: item.depth + 1, parent: item, key, inList });
    }
  }
  return null;
}

/** 400 naming the first place nested too deep. */
export function assertShallow(value: unknown, at: string): void {
  const path = tooDeepPath(value, at);
  if (path === null) return;
  const message = `is nested deeper than ${MAX_JSON_DEPTH} levels`;
  throw new DteError("invalid_document", `${path} ${message}`, [{ path, location: "body", message }]);
}

/**
 * The deep copy structuredClone makes, for what JSON gives (plain objects, arrays, primitives)
 * several times faster; any other value is left to structuredClone (which refuses functions and
 * symbols). Recursive: the caller has checked the depth.
 */
function copyJson(value: unknown): unknown {
  if (typeof value === "function" || typeof value === "symbol") return structuredClone(value);
  if (typeof value !== "object" || value === null) return value;
  const proto = Object.getPrototypeOf(value);
  if (proto === Array.prototype) return (value as unknown[]).map(copyJson);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const copy: Node = {};
  for (const key of Object.keys(value)) {
    const item = copyJson((value as Node)[key]);
    // A key "__proto__" (JSON.parse makes it an own property) stays a property, as structuredClone keeps it.
    if (key === "__proto__") Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

/**
 * Normalizes a document; throws a `DteError` invalid_document (naming `at`-prefixed paths) when a
 * value cannot be fixed: a RUT with a wrong check digit, an impossible date, a negative quantity.
 */
export function normalizeDte(input: Node, today: string, options: NormalizeOptions = {}): Normalized {
  const at = options.at ?? "dte";
  assertShallow(input, at);
  const dte = copyJson(input) as Node;

  const encabezado = node(dte, "Encabezado");
  const idDoc = node(encabezado, "IdDoc");
  const tipo = num(idDoc.TipoDTE) ?? 0;
  idDoc.TipoDTE = tipo;
  // Single objects become lists first, so every path names its line (`Detalle[0].QtyItem`).
  for (const key of ["Detalle", "DscRcgGlobal", "Referencia", "Comisiones"]) list(dte, key);
  // 0. Sanitize first, so arithmetic sees numbers and invalid values stop the document here.
  const clean = sanitizeDte(dte, tipo);
  if (clean.problems.length) throw invalidDocument(clean.problems, at);
  const warnings = clean.warnings;
  const set = (parent: Node, key: string, value: unknown, path: string) => {
    parent[key] = value;
    warnings.push(`${path} = ${JSON.stringify(value)}`);
  };
  const boleta = BOLETAS.has(tipo);
  const exportacion = EXPORTS.has(tipo);
  const exempt = EXEMPT_TYPES[tipo];

  // 1. Common defaults.
  if (idDoc.FchEmis === undefined) set(idDoc, "FchEmis", today, "Encabezado.IdDoc.FchEmis");
  if (boleta && idDoc.IndServicio === undefined) set(idDoc, "IndServicio", 3, "Encabezado.IdDoc.IndServicio");
  if (!NO_SALE_TYPE.has(tipo) && idDoc.TpoTranVenta === undefined && [33, 34, 43, 46, 56, 61].includes(tipo)) {
    set(idDoc, "TpoTranVenta", 1, "Encabezado.IdDoc.TpoTranVenta");
  }
  if (tipo === 52 && num(idDoc.IndTraslado) === 5) copyIssuerAsReceiver(encabezado, warnings);
  const lines = list(dte, "Detalle");
  const globals = list(dte, "DscRcgGlobal");
  const referencias = list(dte, "Referencia");
  const receptor = encabezado.Receptor;
  if (boleta && isNode(receptor) && typeof receptor.CorreoRecep === "string") {
    // Boletas have no CorreoRecep; the reference keeps the address as a reference line.
    referencias.push({ RazonRef: `Email receptor: ${receptor.CorreoRecep}` });
    dte.Referencia = referencias;
    delete receptor.CorreoRecep;
    warnings.push(`Encabezado.Receptor.CorreoRecep moved to Referencia[${referencias.length - 1}].RazonRef (boletas have no CorreoRecep)`);
  }
  lines.forEach((line, i) => {
    line.NroLinDet = i + 1;
  });
  globals.forEach((g, i) => {
    g.NroLinDR = i + 1;
  });
  referencias.forEach((r, i) => {
    r.NroLinRef = i + 1;
    // The boleta schema's Referencia has no FchRef (§1.4).
    if (r.FchRef === undefined && !boleta) set(r, "FchRef", today, `Referencia[${i}].FchRef`);
  });

  // 2. Totals the type starts with; a type without IVA drops the IVA totals it was given.
  const totales = node(encabezado, "Totales");
  for (const key of exempt ? IVA_TOTALS : []) {
    if (totales[key] === undefined) continue;
    delete totales[key];
    warnings.push(`Encabezado.Totales.${key} removed (type ${tipo} carries no IVA)`);
  }
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
      set(line, "MontoItem", round(monto, decimals), `${path}.MontoItem`);
    }
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

  // 4b. A liquidación-factura's commissions and other charges (liquidacion.ts), taken off its total.
  const comisiones = tipo === 43 ? normalizeCommissions(dte, totales, amount("MntNeto"), num(totales.TasaIVA) ?? TASA_IVA, set).total : 0;

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
  if ((tipo === 56 || tipo === 61) && !given("MntNeto")) delete totales.TasaIVA;
  if (exportacion) exportTweaks(encabezado, warnings);

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

  // 8. Payments without an amount are for the total.
  list(idDoc, "MntPagos").forEach((pago, i) => {
    if (pago.MntPago === undefined) set(pago, "MntPago", totales.MntTotal, `Encabezado.IdDoc.MntPagos[${i}].MntPago`);
  });

  // 9. Values this normalizer wrote (copied names, reference texts) obey the same limits.
  const final = sanitizeDte(dte, tipo);
  if (final.problems.length) throw invalidDocument(final.problems, at);
  warnings.push(...final.warnings);
  return { dte, warnings };
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
function exportTweaks(encabezado: Node, warnings: string[]): void {
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
