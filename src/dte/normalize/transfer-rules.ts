// The transfer-of-goods rules of Res. Ex. SII N° 154 de 2025, in force from 2026-11-01 (postponed by Res. Ex.
// N° 52 de 2026), docs/dte-engine.md §12.3 and §12.6 items 1–3: a guía de despacho (52), and an invoice that
// accompanies goods, carry origin, destination, driver, carrier, plate, the kind of transfer and the goods'
// quantity and unit. Before the date each gap is a warning; from it the document is refused, every gap named.
// One function for the normalizer, `generar` taken as given and the sandbox's SII, so all three agree.
import { parseRut } from "../../lib/rut.ts";
import type { DocContext } from "./context.ts";
import { num } from "./numbers.ts";
import { type FieldProblem, isNode, type Node } from "./sanitize.ts";

/** Res. 154/2025 as postponed by Res. 52/2026; [inferred] the emission date (`IdDoc.FchEmis`) decides. */
export const TRANSFER_RULES_FROM = "2026-11-01";
const SOURCE = "Res. Ex. SII 154/2025";
/** [inferred] The invoices that may accompany goods (`IdDoc.TipoDespacho` says they do): facturas, exenta, de compra, de exportación. */
export const TRANSFER_INVOICES: ReadonlySet<number> = new Set([33, 34, 46, 110]);
const GUIA = 52;

const object = (value: unknown): Node => (isNode(value) ? value : {});
const present = (value: unknown): boolean => value !== undefined && value !== null && !(typeof value === "string" && value.trim() === "");
const lines = (value: unknown): Node[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(object);

/**
 * Every gap of the document against the rules, whatever its date: paths inside the document
 * (`Encabezado.Transporte.Patente`, `Detalle[1].UnmdItem`), each message naming the rule.
 */
export function transferGaps(dte: Node, tipo: number): FieldProblem[] {
  const encabezado = object(dte.Encabezado);
  const idDoc = object(encabezado.IdDoc);
  const gaps: FieldProblem[] = [];
  if (tipo !== GUIA && present(idDoc.IndTraslado)) {
    gaps.push({
      path: "Encabezado.IdDoc.IndTraslado",
      message: `is for guías de despacho (52) only, not type ${tipo} (Formato DTE: not applicable outside guías; refused from ${TRANSFER_RULES_FROM} with ${SOURCE})`,
    });
  }
  const despacho = num(idDoc.TipoDespacho);
  if (tipo !== GUIA && !(TRANSFER_INVOICES.has(tipo) && present(idDoc.TipoDespacho))) return gaps;
  const kind = tipo === GUIA ? "a guía de despacho" : `a type ${tipo} document that accompanies goods (IdDoc.TipoDespacho given)`;
  const rule = (resolutivo: string) => `from ${TRANSFER_RULES_FROM} (${SOURCE}, resolutivo ${resolutivo})`;
  const required = (path: string, value: unknown, resolutivo: string) => {
    if (!present(value)) gaps.push({ path, message: `is required in ${kind} ${rule(resolutivo)}` });
  };
  const rut = (path: string, value: unknown, resolutivo: string) => {
    required(path, value, resolutivo);
    if (!present(value)) return;
    const check = parseRut(String(value));
    if (!check.ok)
      gaps.push({
        path,
        message: `${JSON.stringify(String(value))} is not a valid RUT: it ${check.reason}; a valid one is required in ${kind} ${rule(resolutivo)}`,
      });
  };
  const emisor = object(encabezado.Emisor);
  const transporte = object(encabezado.Transporte);
  const chofer = object(transporte.Chofer);
  const traslado = num(idDoc.IndTraslado);
  if (tipo === GUIA) {
    required("Encabezado.IdDoc.IndTraslado", idDoc.IndTraslado, "2");
    if (present(idDoc.IndTraslado) && !(traslado !== undefined && Number.isInteger(traslado) && traslado >= 1 && traslado <= 9)) {
      gaps.push({
        path: "Encabezado.IdDoc.IndTraslado",
        message: `${JSON.stringify(idDoc.IndTraslado)} is not a kind of transfer: one of the schema's codes 1 to 9 is required in ${kind} ${rule("2")}`,
      });
    }
  }
  required("Encabezado.Emisor.DirOrigen", emisor.DirOrigen, "1 a");
  required("Encabezado.Emisor.CmnaOrigen", emisor.CmnaOrigen, "1 a");
  // [inferred] A traslado interno's receiver copied from the issuer is no destination: Transporte must say where.
  required("Encabezado.Transporte.DirDest", transporte.DirDest, "1 a");
  required("Encabezado.Transporte.CmnaDest", transporte.CmnaDest, "1 a");
  rut("Encabezado.Transporte.Chofer.RUTChofer", chofer.RUTChofer, "1 b");
  required("Encabezado.Transporte.Chofer.NombreChofer", chofer.NombreChofer, "1 b");
  // [inferred] An invoice needs the carrier and plate only when the issuer carries (Formato DTE: "relevante si Tipo de Despacho 2 o 3").
  if (tipo === GUIA || despacho === 2 || despacho === 3) {
    rut("Encabezado.Transporte.RUTTrans", transporte.RUTTrans, "1 b");
    required("Encabezado.Transporte.Patente", transporte.Patente, "1 c");
  }
  if (tipo !== GUIA) return gaps;
  lines(dte.Detalle).forEach((line, i) => {
    required(`Detalle[${i}].QtyItem`, line.QtyItem, "1 d");
    required(`Detalle[${i}].UnmdItem`, line.UnmdItem, "1 d");
    // The price may be left out only in a transfer that is no sale (IndTraslado other than 1).
    if (traslado === 1) required(`Detalle[${i}].PrcItem`, line.PrcItem, "1 d");
  });
  return gaps;
}

/** The date that decides: `FchEmis`, or `today` when the document has none (the normalizer fills it in so). */
const issued = (dte: Node, today: string): string => {
  const fchEmis = object(object(dte.Encabezado).IdDoc).FchEmis;
  return typeof fchEmis === "string" && fchEmis !== "" ? fchEmis : today;
};

/** The gaps as problems (a document dated from the switch) or as warnings (before it). */
export function transferRules(dte: Node, tipo: number, today: string): { problems: FieldProblem[]; warnings: string[] } {
  const gaps = transferGaps(dte, tipo);
  if (!gaps.length) return { problems: [], warnings: [] };
  const date = issued(dte, today);
  if (date >= TRANSFER_RULES_FROM) return { problems: gaps, warnings: [] };
  return { problems: [], warnings: gaps.map((g) => `${g.path} ${g.message}: accepted, the document being dated ${date}`) };
}

/** The normalizer's step (normalize.ts): gaps join the document's other problems, or its warnings. */
export function checkTransfer(doc: DocContext): void {
  const { problems, warnings } = transferRules(doc.dte, doc.tipo, doc.today);
  doc.problems.push(...problems);
  doc.warnings.push(...warnings);
}
