// The per-document context the normalizer's steps share (normalize.ts): the document, its
// Encabezado, IdDoc and line lists, the type and what it implies, the warnings, and once the
// totals exist (step 2) the Totales, their decimals and the helpers that read them.
import { num } from "./numbers.ts";
import { type FieldProblem, isNode, type Node } from "./sanitize.ts";

export const BOLETAS = new Set([39, 41]);
export const EXPORTS = new Set([110, 111, 112]);
export const NO_SALE_TYPE = new Set([39, 41, 110, 111, 112]);
export const TASA_IVA = 19;

/** Totals each type starts with: 0 = present as zero; absent = only when computed (§4.2). */
export const TOTAL_DEFAULTS: Record<number, Node> = {
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
export const EXEMPT_TYPES: Record<number, { forceLines: boolean }> = {
  34: { forceLines: false },
  41: { forceLines: false },
  110: { forceLines: true },
  111: { forceLines: true },
  112: { forceLines: true },
};

/** The object at `parent[key]`, created empty when it is absent or not an object. */
export const node = (parent: Node, key: string): Node => {
  if (!isNode(parent[key])) parent[key] = {};
  return parent[key] as Node;
};
/** `parent[key]` as a list of objects (a single object becomes a one-item list, other values are dropped). */
export const list = (parent: Node, key: string): Node[] => {
  const value = parent[key];
  const items = value === undefined ? [] : Array.isArray(value) ? value : [value];
  const nodes = items.filter(isNode);
  if (value !== undefined) parent[key] = nodes;
  return nodes;
};

/** One document being normalized: what every step reads, and where it writes its warnings. */
export interface DocContext {
  dte: Node;
  encabezado: Node;
  idDoc: Node;
  lines: Node[];
  globals: Node[];
  referencias: Node[];
  tipo: number;
  /** The issue date for fields left empty (`FchEmis`, `FchRef`). */
  today: string;
  boleta: boolean;
  exportacion: boolean;
  /** Set when the type carries no IVA (`EXEMPT_TYPES`). */
  exempt: { forceLines: boolean } | undefined;
  warnings: string[];
  /** Amounts computed beyond the SII's range, named by the fields they come from (the document is refused). */
  problems: FieldProblem[];
  /** Writes `parent[key]` and says so in a warning naming `path`. */
  set: (parent: Node, key: string, value: unknown, path: string) => void;
}

/** The context once `Totales` exists (step 2 on): amounts rounded to `decimals` (4 in a foreign currency). */
export interface TotalsContext extends DocContext {
  totales: Node;
  decimals: number;
  /** `Totales[key]` as a number, 0 when absent. */
  amount: (key: string) => number;
  /** Whether `Totales[key]` is a number other than 0. */
  given: (key: string) => boolean;
}

/** The context of a sanitized document; lists its lines, global discounts and references (so their paths have an index). */
export function docContext(dte: Node, tipo: number, today: string, warnings: string[]): DocContext {
  const encabezado = node(dte, "Encabezado");
  return {
    dte,
    encabezado,
    idDoc: node(encabezado, "IdDoc"),
    lines: list(dte, "Detalle"),
    globals: list(dte, "DscRcgGlobal"),
    referencias: list(dte, "Referencia"),
    tipo,
    today,
    boleta: BOLETAS.has(tipo),
    exportacion: EXPORTS.has(tipo),
    exempt: EXEMPT_TYPES[tipo],
    warnings,
    problems: [],
    set: (parent, key, value, path) => {
      parent[key] = value;
      warnings.push(`${path} = ${JSON.stringify(value)}`);
    },
  };
}

/**
 * Adds the totals to a context, in place (the document's steps go on with the one object; a copy
 * of its fields cost every document a few microseconds); a foreign currency (exports only) keeps
 * 4 decimals.
 */
export function totalsContext(doc: DocContext, totales: Node): TotalsContext {
  const foreign = doc.exportacion && typeof totales.TpoMoneda === "string" && totales.TpoMoneda !== "PESO CL";
  return Object.assign(doc, {
    totales,
    decimals: foreign ? 4 : 0,
    amount: (key: string) => num(totales[key]) ?? 0,
    given: (key: string) => (num(totales[key]) ?? 0) !== 0,
  });
}
