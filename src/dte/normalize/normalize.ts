// A DTE as JSON with the SII's tag names, completed and computed the way the reference normalizer
// (LibreDTE) does (docs/dte-engine.md §4): defaults, line amounts, discounts and surcharges, additional
// taxes and retentions, IVA (boletas: net from gross), totals, other currency; text, RUTs, dates
// and numbers sanitized before and after (sanitize.ts); an item name past 80 characters goes on in
// DscItem (item-names.ts); a guía, or an invoice that accompanies goods, carries its transfer data from
// 2026-11-01 (transfer-rules.ts). Pure: no I/O.
import { DteError } from "../errors.ts";
import { type DocContext, docContext, list, node, TOTAL_DEFAULTS } from "./context.ts";
import { commonDefaults, otherCurrency, payments, startTotals } from "./header.ts";
import { moveLongItemNames } from "./item-names.ts";
import { globalDiscounts, normalizeLines } from "./lines.ts";
import { num } from "./numbers.ts";
import { type FieldProblem, type Node, sanitizeDte } from "./sanitize.ts";
import { additionalTaxes, commissions, ivaAndTotal } from "./total.ts";
import { checkTransfer } from "./transfer-rules.ts";

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

export const SUPPORTED_TYPES = Object.keys(TOTAL_DEFAULTS).map(Number);

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
 * The steps run in the reference's order, each on the shared context (context.ts).
 */
export function normalizeDte(input: Node, today: string, options: NormalizeOptions = {}): Normalized {
  const at = options.at ?? "dte";
  const doc = sanitizeFirst(input, today, at);
  moveLongItemNames(doc);
  // On the document as given: the issuer copied as receiver (IndTraslado 5) is no destination.
  checkTransfer(doc);
  commonDefaults(doc);
  const ctx = startTotals(doc);
  normalizeLines(ctx);
  globalDiscounts(ctx);
  const comisiones = commissions(ctx);
  const retenciones = additionalTaxes(ctx);
  ivaAndTotal(ctx, comisiones, retenciones);
  otherCurrency(ctx);
  payments(ctx);
  if (ctx.problems.length) throw invalidDocument(ctx.problems, at);
  sanitizeAgain(ctx, at);
  return { dte: ctx.dte, warnings: ctx.warnings };
}

const ITEM_NAME: ReadonlySet<string> = new Set(["NmbItem"]);

/** 0. Sanitize a copy first, so arithmetic sees numbers and invalid values stop the document here. */
function sanitizeFirst(input: Node, today: string, at: string): DocContext {
  assertShallow(input, at);
  const dte = copyJson(input) as Node;
  const idDoc = node(node(dte, "Encabezado"), "IdDoc");
  const tipo = num(idDoc.TipoDTE) ?? 0;
  idDoc.TipoDTE = tipo;
  // Single objects become lists first, so every path names its line (`Detalle[0].QtyItem`).
  for (const key of ["Detalle", "DscRcgGlobal", "Referencia", "Comisiones"]) list(dte, key);
  // An over-long NmbItem is split by the next step, not cut here (item-names.ts).
  const clean = sanitizeDte(dte, tipo, { uncut: ITEM_NAME });
  if (clean.problems.length) throw invalidDocument(clean.problems, at);
  return docContext(dte, tipo, today, clean.warnings);
}

/** What the amounts the normalizer computes come from, for the message when one is out of the SII's range. */
const COMPUTED_FROM: Record<string, string> = {
  MontoItem: "QtyItem × PrcItem, DescuentoMonto and RecargoMonto",
  DescuentoMonto: "DescuentoPct and the line's QtyItem × PrcItem",
  RecargoMonto: "RecargoPct and the line's QtyItem × PrcItem",
  MntNeto: "the lines' MontoItem and DscRcgGlobal's ValorDR",
  MntExe: "the lines' MontoItem and DscRcgGlobal's ValorDR",
  MontoNF: "the lines' MontoItem and DscRcgGlobal's ValorDR",
  IVA: "MntNeto and TasaIVA",
  MontoImp: "the lines' MontoItem and TasaImp",
  IVANoRet: "IVA and MontoImp",
  CredEC: "IVA",
  MntTotal: "MntNeto, IVA, MntExe, MontoImp and the lines' MontoItem",
  MontoPeriodo: "MntTotal and MontoNF",
  MntPago: "MntTotal",
};

/** 9. Values this normalizer wrote (copied names, reference texts) obey the same limits; a number out of its range was computed. */
function sanitizeAgain(ctx: DocContext, at: string): void {
  const final = sanitizeDte(ctx.dte, ctx.tipo);
  const problems = final.problems.map((p) =>
    p.number === undefined
      ? p
      : {
          ...p,
          message: `computed from ${COMPUTED_FROM[p.number] ?? (p.number.endsWith("OtrMnda") ? "TpoCambio and the amounts in pesos" : "the document's amounts")}: ${p.message}`,
        },
  );
  if (problems.length) throw invalidDocument(problems, at);
  ctx.warnings.push(...final.warnings);
}
