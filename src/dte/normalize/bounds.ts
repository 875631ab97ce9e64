// The ranges the SII's schemas give the DTE's numbers, by tag name (as fields.ts does for texts), and
// the check both the request's schema (a 422 naming the field sent) and the sanitizer (a 400, for
// XML and for what the normalizer computed) make with them. Only magnitudes: whether a number may
// be negative is the sanitizer's rule (NON_NEGATIVE_FIELDS, signed in a liquidación-factura).
import { NON_NEGATIVE_FIELDS } from "./fields.ts";
import { NUMERIC_TEXT } from "./numbers.ts";

export interface NumberBound {
  /** The schema's type, for messages: `Dec12_6Type`. */
  type: string;
  /** Digits before the point: the value is below 10^digits. */
  digits: number;
  /** Decimals the type allows (for the range written out). */
  decimals: number;
  /** A `maxInclusive` below 10^digits (line numbers, percentages). */
  max?: number;
}

// SiiTypes_v10.xsd (EnvioBOLETA_v11.xsd's Dec1Type and Dec5Type are Dec16_2Type and Dec12_6Type).
const MONTO: NumberBound = { type: "MontoType", digits: 18, decimals: 0 }; // also MntImpType, ValorType: 18 digits
const DEC16_2: NumberBound = { type: "Dec16_2Type", digits: 16, decimals: 2 };
const DEC14_4: NumberBound = { type: "Dec14_4Type", digits: 14, decimals: 4 };
const DEC12_6: NumberBound = { type: "Dec12_6Type", digits: 12, decimals: 6 };
const DEC6_4: NumberBound = { type: "Dec6_4Type", digits: 6, decimals: 4 };
const PCT: NumberBound = { type: "PctType", digits: 3, decimals: 2 };
const integer = (digits: number, max?: number): NumberBound => ({
  type: max === undefined ? `an integer of ${digits} digits` : `an integer up to ${max}`,
  digits,
  decimals: 0,
  ...(max === undefined ? {} : { max }),
});

const tags = (names: string, bound: NumberBound) => names.split(" ").map((name) => [name, bound] as const);

/**
 * DTE_v10.xsd's bounded numbers, the widest of its Documento, Liquidacion and Exportaciones (an
 * export's amounts are 14 digits and 4 decimals, within MontoType's 18). Enumerations (IndExe,
 * CodRef, FmaPago…) are not here: their values are the engine's to read.
 */
export const NUMBER_BOUNDS: Record<string, NumberBound> = Object.fromEntries([
  ...tags(
    "CredEC DescuentoMonto GrntDep IVA IVANoRet IVAProp IVATerc MntBase MntBaseFaena MntCancel MntExe MntMargComer " +
      "MntMargenCom MntNeto MntPago MntTotal MontoImp MontoItem MontoNF MontoPeriodo PrcConsFinal RecargoMonto " +
      "SaldoAnterior SaldoInsol TotalPeriodo ValComExe ValComIVA ValComNeto VlrPagar",
    MONTO,
  ),
  ...tags("SubTotAdicSTI SubTotExeSTI SubTotIVASTI SubTotNetoSTI TotClauVenta ValSubtotSTI ValorDR ValorDscto ValorRecargo", DEC16_2),
  ...tags(
    "DctoOtrMnda IVANoRetOtrMnda IVAOtrMnda MntExeOtrMnda MntFaeCarneOtrMnda MntFlete MntMargComOtrMnda MntNetoOtrMnda " +
      "MntSeguro MntTotOtrMnda MontoItemOtrMnda PrcOtrMon RecargoOtrMnda ValorDROtrMnda VlrImpOtrMnda",
    DEC14_4,
  ),
  ...tags("PrcItem PrcRef QtyItem QtyRef SubQty", DEC12_6),
  ...tags("FctConv TpoCambio", DEC6_4),
  ...tags("RecargoPct TasaComision TasaIVA TasaImp TasaImpOtrMnda", PCT),
  // A discount beyond the whole price is no discount (the boleta schema says 100; DTE_v10 PctType's 999.99).
  ["DescuentoPct", { ...PCT, max: 100 }],
  // Weights: decimal, 10 digits in all (2 of them decimals).
  ...tags("PesoBruto PesoNeto", { type: "a decimal of 10 digits", digits: 10, decimals: 0 }),
  ["Folio", { type: "FolioType", digits: 10, decimals: 0 }],
  ["FolioAut", { type: "NroResolType", digits: 6, decimals: 0 }],
  ["Acteco", integer(6)],
  ["CdgSIISucur", integer(9)],
  ["CantBultos", integer(10)],
  ["Tara", integer(7)],
  ["TermPagoDias", integer(3)],
  ...tags("TotBultos TotItems", integer(18)),
  ...tags("CodPaisDestin CodPaisRecep CodTpoBultos", integer(3)),
  ...tags("CodPtoDesemb CodPtoEmbarque", integer(4)),
  ...tags("CodClauVenta CodModVenta CodUnidMedTara CodUnidPesoBruto CodUnidPesoNeto CodViaTransp FmaPagExp", integer(2)),
  ...tags("NroLinRef NroSTI OrdenSTI", integer(2, 99)),
  // DTE_v10 says 99 (of 60 lines); the gateway takes any type with as many lines as a boleta (1000,
  // MAX_DOCUMENT_LINES), and numbers them.
  ["NroLinDet", integer(4, 1000)],
  ["NroLinCom", integer(2, 20)],
]);

/** Where EnvioBOLETA_v11.xsd differs: up to 1000 lines, 40 references, 99 global discounts, surcharges up to 100%. */
export const BOLETA_NUMBER_BOUNDS: Record<string, NumberBound> = {
  LineasDeta: integer(4, 1000),
  NroLinRef: integer(2, 40),
  NroLinDR: integer(2, 99),
  RecargoPct: { ...PCT, max: 100 },
};

/** The bound of `tag` in a document of type `tipo` (boletas: 39, 41), if the schema gives one. */
export function boundOf(tag: string, tipo: number): NumberBound | undefined {
  if (tipo === 39 || tipo === 41) return BOLETA_NUMBER_BOUNDS[tag] ?? NUMBER_BOUNDS[tag];
  return NUMBER_BOUNDS[tag];
}

/** The largest value of a bound, written out: `999999999999.999999`. */
export const maxText = (bound: NumberBound): string =>
  bound.max !== undefined ? String(bound.max) : "9".repeat(bound.digits) + (bound.decimals ? `.${"9".repeat(bound.decimals)}` : "");

/** The range of `tag` under `bound`, as messages give it: `0 to 999999999999.999999 (Dec12_6Type)`. */
export function rangeText(tag: string, bound: NumberBound): string {
  const max = maxText(bound);
  return `${NON_NEGATIVE_FIELDS.has(tag) ? "0" : `-${max}`} to ${max} (${bound.type})`;
}

/** Whether `value` is beyond `bound` either way (NaN and the infinities are). */
export const beyond = (value: number, bound: NumberBound): boolean =>
  !(Math.abs(value) < 10 ** bound.digits) || (bound.max !== undefined && Math.abs(value) > bound.max);

/** Why `value` (a number or its digits) is outside `bound`, the range of `tag`, or undefined; other values are not this check's. */
export function boundProblem(tag: string, value: unknown, bound: NumberBound | undefined): string | undefined {
  if (bound === undefined) return undefined;
  const number = typeof value === "number" ? value : typeof value === "string" && NUMERIC_TEXT.test(value) ? Number(value) : undefined;
  if (number === undefined || Number.isNaN(number) || !beyond(number, bound)) return undefined;
  return `is outside the SII's range for ${tag}, ${rangeText(tag, bound)}`;
}

/** The widest bound `tag` has in any document type, as the request's document states it. */
export function widestBound(tag: string): NumberBound | undefined {
  const [own, boleta] = [NUMBER_BOUNDS[tag], BOLETA_NUMBER_BOUNDS[tag]];
  if (own === undefined || boleta === undefined) return own ?? boleta;
  return (boleta.max ?? 10 ** boleta.digits) > (own.max ?? 10 ** own.digits) ? boleta : own;
}

/** A problem found by `boundsProblems`: where (keys and list indexes) and why. */
export interface BoundIssue {
  path: (string | number)[];
  message: string;
}

/**
 * Every number of `dte` outside the widest range of its tag (what the request's document states;
 * a type's narrower one is the sanitizer's), wherever the tag appears, in lists and single objects
 * alike. Stops `maxDepth` levels down: deeper documents are refused for their depth elsewhere.
 */
export function boundsProblems(dte: unknown, skip: ReadonlySet<string> = new Set(), maxDepth = 64): BoundIssue[] {
  const issues: BoundIssue[] = [];
  const visit = (value: unknown, path: (string | number)[], tag: string | undefined, depth: number) => {
    if (Array.isArray(value)) {
      if (depth < maxDepth)
        value.forEach((item, i) => {
          visit(item, [...path, i], tag, depth + 1);
        });
    } else if (typeof value === "object" && value !== null) {
      if (depth < maxDepth) for (const [key, child] of Object.entries(value)) visit(child, [...path, key], key, depth + 1);
    } else if (tag !== undefined && !skip.has(tag)) {
      const message = boundProblem(tag, value, widestBound(tag));
      if (message !== undefined) issues.push({ path, message: `${typeof value === "string" ? JSON.stringify(value) : value} ${message}` });
    }
  };
  visit(dte, [], undefined, 0);
  return issues;
}
