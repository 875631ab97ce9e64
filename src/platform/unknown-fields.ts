// A body field the operation does not know is refused (422 VALIDATION_ERROR, each one named), not
// dropped: `{"daily_units": 20}` beside `plan` used to mint a token with the default plan and say
// nothing. zod's plain objects strip what they do not know, so the rule is applied here, once, to
// every operation's body (operation.ts), walking the schema beside what was sent:
// - an object's keys must be in its shape, unless it takes any key (`.passthrough()`, a record): the
//   SII's own structures (`dte`'s Encabezado, IdDoc, Emisor, Detalle…) pass their tags through to
//   the engine, which checks them against the SII's schema;
// - a union's value is held to its closest branch (a discriminated one's by its discriminator);
// - what a transform reads first (a preprocess) is not walked: its input has no shape.
// The walk reads each value once and stops at MAX_FIELD_ERRORS unknown fields.
import type { z } from "@hono/zod-openapi";

type Schema = z.core.$ZodType;
type Path = (string | number)[];

export interface UnknownField {
  path: Path;
  key: string;
  /** The object's own keys, for the message (when there are few). */
  known: readonly string[];
  /** What the object's schema says of that key (`explainUnknown`). */
  hint?: string;
}

const hints = new WeakMap<object, Record<string, string>>();

/**
 * Words for a key an object does not take but a caller may well send (`pass` where only `cert`
 * is taken): the refusal says them instead of the generic ones.
 */
export function explainUnknown<S extends Schema>(schema: S, words: Record<string, string>): S {
  hints.set(schema, words);
  return schema;
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional", "success"]);

/** The schema a value is read by once wrappers and pipes are looked through; null: no shape to hold it to. */
function unwrap(schema: Schema): Schema | null {
  let s: Schema = schema;
  for (let i = 0; i < 32; i++) {
    const def = s._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
    if (WRAPPERS.has(def.type)) s = def.innerType as Schema;
    else if (def.type === "pipe") s = def.in as Schema;
    else if (def.type === "lazy") s = (def.getter as () => Schema)();
    else if (def.type === "transform") return null;
    else return s;
  }
  return null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Keys an object schema knows: its shape's, and an intersection's on both sides; `open`: any key goes. */
function keysOf(schema: Schema): { shape: Record<string, Schema>; open: Schema | "any" | null } | null {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  if (def.type === "object") {
    const catchall = def.catchall as Schema | undefined;
    const closed = !catchall || catchall._zod.def.type === "never";
    return { shape: def.shape as Record<string, Schema>, open: closed ? null : catchall };
  }
  if (def.type === "record") return { shape: {}, open: def.valueType as Schema };
  if (def.type === "intersection") {
    const sides = [def.left, def.right].map((s) => unwrap(s as Schema)).map((s) => (s ? keysOf(s) : { shape: {}, open: "any" as const }));
    if (sides.some((s) => s === null)) return null;
    const [a, b] = sides as { shape: Record<string, Schema>; open: Schema | "any" | null }[];
    return { shape: { ...a?.shape, ...b?.shape }, open: a?.open || b?.open ? "any" : null };
  }
  return null;
}

/** The unknown fields of `value` under `schema`, at most `limit` of them. */
export function unknownFields(schema: Schema, value: unknown, limit: number): UnknownField[] {
  const out: UnknownField[] = [];
  walk(schema, value, [], out, limit);
  return out;
}

function walk(schema: Schema, value: unknown, path: Path, out: UnknownField[], limit: number): void {
  if (out.length >= limit) return;
  const s = unwrap(schema);
  if (!s || value === null || typeof value !== "object") return;
  const def = s._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  if (def.type === "union") {
    walkUnion(def as unknown as z.core.$ZodDiscriminatedUnionDef, value, path, out, limit);
    return;
  }
  if (Array.isArray(value)) {
    const items = def.type === "tuple" ? (def.items as Schema[]) : [];
    const rest = def.type === "array" ? (def.element as Schema) : def.type === "tuple" ? (def.rest as Schema | null) : null;
    for (const [i, item] of value.entries()) {
      const itemSchema = items[i] ?? rest;
      if (itemSchema) walk(itemSchema, item, [...path, i], out, limit);
    }
    return;
  }
  const keys = keysOf(s);
  if (!keys || !isPlainObject(value)) return;
  for (const [key, item] of Object.entries(value)) {
    if (out.length >= limit) return;
    const known = Object.hasOwn(keys.shape, key) ? keys.shape[key] : keys.open;
    if (known === "any") continue;
    if (known) walk(known, item, [...path, key], out, limit);
    else out.push({ path: [...path, key], key, known: Object.keys(keys.shape), hint: hints.get(s)?.[key] });
  }
}

/** A union's value is held to the branch its discriminator names, else to the branch it fits best. */
function walkUnion(def: z.core.$ZodDiscriminatedUnionDef, value: object, path: Path, out: UnknownField[], limit: number): void {
  let options = def.options as readonly Schema[];
  if (def.discriminator && isPlainObject(value)) {
    const tag = value[def.discriminator];
    const named = options.filter((o) => {
      const values = (o._zod as { propValues?: Record<string, Set<unknown>> }).propValues?.[def.discriminator];
      return values?.has(tag);
    });
    if (named.length > 0) options = named;
  }
  let best: UnknownField[] | null = null;
  for (const option of options) {
    const s = unwrap(option);
    if (!s) return;
    const kind = s._zod.def.type;
    const fits = Array.isArray(value) ? kind === "array" || kind === "tuple" : keysOf(s) !== null || kind === "union";
    if (!fits) continue;
    const found: UnknownField[] = [];
    walk(s, value, path, found, limit - out.length);
    if (found.length === 0) return;
    if (!best || found.length < best.length) best = found;
  }
  if (best) out.push(...best);
}

/**
 * Where the schema has a field of that name, any case (`plan.daily_units` for a stray
 * `daily_units`, `TipoDTE` for `tipoDTE`), the nearest first; lists are marked `[]`.
 */
export function fieldNamed(schema: Schema, key: string, depth = 4): string | null {
  const lower = key.toLowerCase();
  let level: { schema: Schema; path: string }[] = [{ schema, path: "" }];
  for (let d = 0; d <= depth && level.length > 0; d++) {
    const next: typeof level = [];
    for (const item of level) {
      for (const { shape, path } of shapesAt(item.schema, item.path)) {
        for (const [name, child] of Object.entries(shape)) {
          const at = path ? `${path}.${name}` : name;
          if (name.toLowerCase() === lower) return at;
          next.push({ schema: child, path: at });
        }
      }
    }
    level = next;
  }
  return null;
}

/** The object shapes a schema reads a value by: its own, a list's items', each union branch's. */
function shapesAt(schema: Schema, path: string, depth = 0): { shape: Record<string, Schema>; path: string }[] {
  const s = unwrap(schema);
  if (!s || depth > 8) return [];
  const def = s._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  if (def.type === "union") return (def.options as Schema[]).flatMap((o) => shapesAt(o, path, depth + 1));
  if (def.type === "array") return shapesAt(def.element as Schema, `${path}[]`, depth + 1);
  const keys = keysOf(s);
  return keys ? [{ shape: keys.shape, path }] : [];
}
