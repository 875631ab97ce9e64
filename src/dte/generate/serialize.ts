// A document as JSON with the SII's tag names, written as XML in the order the SII's schema demands
// (schema-order.ts, generated from the XSDs). Text is escaped the way the SII wants it in files
// (docs/dte-engine.md §1.5: `&apos;` and `&quot;` too); numbers never in exponent notation.
// Anything the schema has no place for is reported by its path, so the caller can answer 400.
import { escapeXml } from "../../lib/xml.ts";
import { BOLETA_TEXT_LIMITS, TEXT_LIMITS } from "../normalize/fields.ts";
import { type FieldProblem, isNode } from "../normalize/sanitize.ts";
import { BOLETA_ORDER, DOCUMENTO_ORDER, EXPORTACIONES_ORDER, LIQUIDACION_ORDER, type SchemaOrder } from "./schema-order.ts";

export type Container = "Documento" | "Liquidacion" | "Exportaciones";

/** Where a type's document lives in the DTE and which schema orders it (docs/dte-engine.md §1.1). */
export function containerOf(tipo: number): { element: Container; order: SchemaOrder; limits: Readonly<Record<string, number>> } {
  if (tipo === 39 || tipo === 41) return { element: "Documento", order: BOLETA_ORDER, limits: { ...TEXT_LIMITS, ...BOLETA_TEXT_LIMITS } };
  if (tipo === 43) return { element: "Liquidacion", order: LIQUIDACION_ORDER, limits: TEXT_LIMITS };
  if (tipo >= 110 && tipo <= 112) return { element: "Exportaciones", order: EXPORTACIONES_ORDER, limits: TEXT_LIMITS };
  return { element: "Documento", order: DOCUMENTO_ORDER, limits: TEXT_LIMITS };
}

/** A number as the schema's decimal: plain digits, at most 6 decimals (Dec12_6), no exponent. */
export function formatNumber(value: number): string {
  // String() writes integers below 1e21 as plain digits; amounts never come near.
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  return value.toFixed(6).replace(/0+$/, "").replace(/\.$/, "");
}

function textOf(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return formatNumber(value);
  if (typeof value === "string") return value;
  return null;
}

/** Why the text cannot be an element's text in the SII's ISO-8859-1 files, or null when it can. */
function unwritable(text: string): string | null {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff) return "has characters ISO-8859-1 cannot write";
    if (code < 0x20 || code === 0x7f) return "has control characters";
  }
  return null;
}

/**
 * The children of `node` (the element at `path` inside the container) as XML, in schema order.
 * Empty strings and nulls are left out (the schema has no empty elements); TED and TmstFirma are
 * the signer's, never the input's.
 */
export function serializeChildren(
  node: Record<string, unknown>,
  order: SchemaOrder,
  path = "",
  problems: FieldProblem[] = [],
  limits: Readonly<Record<string, number>> = TEXT_LIMITS,
): string {
  const allowed = order[path] ?? [];
  const where = (name: string) => (path ? `${path.replaceAll("/", ".")}.${name}` : name);
  const known = allowedSet(allowed);
  for (const name of Object.keys(node)) {
    if (!known.has(name) || (path === "" && (name === "TED" || name === "TmstFirma")))
      if (node[name] !== undefined && node[name] !== null)
        problems.push({ path: where(name), message: `has no place in this document type's schema (allowed here: ${allowed.join(", ")})` });
  }
  let xml = "";
  for (const name of allowed) {
    if (path === "" && (name === "TED" || name === "TmstFirma")) continue;
    const value = node[name];
    if (value === undefined || value === null) continue;
    const at = path ? `${path}/${name}` : name;
    const container = order[at] !== undefined;
    const many = Array.isArray(value);
    const count = many ? value.length : 1;
    for (let i = 0; i < count; i++) {
      const item = many ? value[i] : value;
      // Paths are written only for a problem: most documents have none.
      const label = () => (count > 1 ? `${where(name)}[${i}]` : where(name));
      if (isNode(item)) {
        if (!container) problems.push({ path: label(), message: "is a value, not an object" });
        else xml += `<${name}>${serializeChildren(item, order, at, problems, limits)}</${name}>`;
        continue;
      }
      if (container) {
        problems.push({ path: label(), message: "must be an object with its own elements" });
        continue;
      }
      const text = textOf(item);
      const refused = text === null ? null : unwritable(text);
      if (text === null) problems.push({ path: label(), message: "must be a string or a number" });
      else if (refused) problems.push({ path: label(), message: refused });
      else if (text.length > (limits[name] ?? Number.POSITIVE_INFINITY))
        problems.push({ path: label(), message: `is longer than the schema's ${limits[name]} characters` });
      else if (text !== "") xml += `<${name}>${escapeXml(text)}</${name}>`;
    }
  }
  return xml;
}

/** Each schema list's names as a set, made once per list. */
const allowedSets = new WeakMap<readonly string[], ReadonlySet<string>>();
function allowedSet(allowed: readonly string[]): ReadonlySet<string> {
  let set = allowedSets.get(allowed);
  if (!set) {
    set = new Set(allowed);
    allowedSets.set(allowed, set);
  }
  return set;
}
