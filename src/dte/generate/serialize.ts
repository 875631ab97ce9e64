// A document as JSON with the SII's tag names, written as XML in the order the SII's schema demands
// (schema-order.ts, generated from the XSDs). Text is escaped the way the SII wants it in files
// (docs/dte-engine.md §1.5: `&apos;` and `&quot;` too); numbers never in exponent notation.
// Anything the schema has no place for is reported by its path, so the caller can answer 400.
import { escapeXml } from "../../lib/xml.ts";
import { BOLETA_TEXT_LIMITS, TEXT_LIMITS } from "../normalize/fields.ts";
import { type FieldProblem, isNode } from "../normalize/sanitize.ts";
import { BOLETA_ORDER, DOCUMENTO_ORDER, EXPORTACIONES_ORDER, LIQUIDACION_ORDER, type SchemaOrder } from "./schema-order.ts";

export type Container = "Documento" | "Liquidacion" | "Exportaciones";

/** The boletas' text limits: the other types' with the boleta schema's own over them. */
const BOLETA_LIMITS: Readonly<Record<string, number>> = { ...TEXT_LIMITS, ...BOLETA_TEXT_LIMITS };

/** Where a type's document lives in the DTE and which schema orders it (docs/dte-engine.md §1.1). */
export function containerOf(tipo: number): { element: Container; order: SchemaOrder; limits: Readonly<Record<string, number>> } {
  if (tipo === 39 || tipo === 41) return { element: "Documento", order: BOLETA_ORDER, limits: BOLETA_LIMITS };
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
export function unwritable(text: string): string | null {
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
  const slots = slotsOf(order, path);
  const where = (name: string) => (path ? `${path.replaceAll("/", ".")}.${name}` : name);
  // The node's own fields (a few) put in schema order, rather than every name the schema allows looked up.
  const present: { name: string; value: unknown; slot: Slot }[] = [];
  for (const name of Object.keys(node)) {
    const value = node[name];
    if (value === undefined || value === null) continue;
    const slot = slots.get(name);
    if (!slot || (path === "" && (name === "TED" || name === "TmstFirma")))
      problems.push({
        path: where(name),
        message: `has no place in this document type's schema (allowed here: ${(order[path] ?? []).join(", ")})`,
      });
    else present.push({ name, value, slot });
  }
  // Insertion sort: a node has a handful of fields, for which Array.prototype.sort's set-up cost more than the sorting.
  for (let i = 1; i < present.length; i++) {
    const item = present[i] as (typeof present)[number];
    let j = i - 1;
    for (; j >= 0 && (present[j] as (typeof present)[number]).slot.index > item.slot.index; j--)
      present[j + 1] = present[j] as (typeof present)[number];
    present[j + 1] = item;
  }
  const limitOf = limitMap(limits);
  let xml = "";
  for (const { name, value, slot } of present) {
    const many = Array.isArray(value);
    const count = many ? value.length : 1;
    for (let i = 0; i < count; i++) {
      const item = many ? value[i] : value;
      // Paths are written only for a problem: most documents have none.
      const label = () => (count > 1 ? `${where(name)}[${i}]` : where(name));
      if (isNode(item)) {
        if (!slot.container) problems.push({ path: label(), message: "is a value, not an object" });
        else xml += `<${name}>${serializeChildren(item, order, slot.at, problems, limits)}</${name}>`;
        continue;
      }
      if (slot.container) {
        problems.push({ path: label(), message: "must be an object with its own elements" });
        continue;
      }
      const text = textOf(item);
      const refused = text === null ? null : unwritable(text);
      if (text === null) problems.push({ path: label(), message: "must be a string or a number" });
      else if (refused) problems.push({ path: label(), message: refused });
      else if (text.length > (limitOf.get(name) ?? Number.POSITIVE_INFINITY))
        problems.push({ path: label(), message: `is longer than the schema's ${limits[name]} characters` });
      else if (text !== "") xml += `<${name}>${escapeXml(text)}</${name}>`;
    }
  }
  return xml;
}

/** Each table of text limits as a Map, made once: looking a name up in the large record (most names are absent) was a slow keyed load. */
const limitMaps = new WeakMap<Readonly<Record<string, number>>, ReadonlyMap<string, number>>();
function limitMap(limits: Readonly<Record<string, number>>): ReadonlyMap<string, number> {
  let map = limitMaps.get(limits);
  if (!map) {
    map = new Map(Object.entries(limits));
    limitMaps.set(limits, map);
  }
  return map;
}

/** A name the schema allows at a path: its position, its own path, and whether it has elements of its own. */
interface Slot {
  index: number;
  at: string;
  container: boolean;
}

/** Per schema order, per path: the slots of the names allowed there, made once. */
const slotCache = new WeakMap<SchemaOrder, Map<string, ReadonlyMap<string, Slot>>>();
function slotsOf(order: SchemaOrder, path: string): ReadonlyMap<string, Slot> {
  let byPath = slotCache.get(order);
  if (!byPath) {
    byPath = new Map();
    slotCache.set(order, byPath);
  }
  let slots = byPath.get(path);
  if (!slots) {
    slots = new Map(
      (order[path] ?? []).map((name, index) => {
        const at = path ? `${path}/${name}` : name;
        return [name, { index, at, container: order[at] !== undefined }];
      }),
    );
    byPath.set(path, slots);
  }
  return slots;
}
