// The document says what the server does with a body field it does not know: refuses it
// (src/platform/unknown-fields.ts). zod writes a plain object without `additionalProperties`, so
// every object a request body reaches is closed here, unless it says what else it takes (a
// record's values, the SII structures that pass their tags through):
// - an object on its own gets `additionalProperties: false`;
// - an object that is a part of an `allOf` (a body built from the credentials' schema and fields
//   of its own) cannot close itself, since the other part's fields would be foreign to it: the
//   `allOf` gets `unevaluatedProperties: false` instead, which sees every part's fields, and so
//   does a reference to such a part used on its own.
// Generators then type request bodies without an index signature, and validators refuse as the server does.

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === "object" && !Array.isArray(value);
const REF = "#/components/schemas/";

export function closeRequestBodies(paths: Json, schemas: Json): void {
  const bodies = Object.values(paths).flatMap((item) =>
    Object.values(item as Json).flatMap((operation) => {
      const content = isObject(operation) && isObject(operation.requestBody) ? operation.requestBody.content : undefined;
      return isObject(content) ? Object.values(content).filter(isObject) : [];
    }),
  );
  const deref = (schema: Json): Json =>
    typeof schema.$ref === "string" && schema.$ref.startsWith(REF) ? ((schemas[schema.$ref.slice(REF.length)] as Json) ?? schema) : schema;
  const parts = allOfParts(
    bodies.map((media) => media.schema),
    deref,
  );
  const seen = new Set<Json>();
  const close = (schema: unknown): void => {
    if (!isObject(schema)) return;
    const target = deref(schema);
    // A part referenced on its own is closed at the reference, where its fields are all there is.
    if (target !== schema && parts.has(target)) schema.unevaluatedProperties ??= false;
    if (seen.has(target)) return;
    seen.add(target);
    if (Array.isArray(target.allOf)) {
      if (target.additionalProperties === undefined) target.unevaluatedProperties ??= false;
      for (const part of target.allOf) if (isObject(part)) closeFields(deref(part));
    } else if (isObject(target.properties) && !parts.has(target)) {
      target.additionalProperties ??= false;
    }
    closeFields(target);
  };
  /** What lies inside an object: its properties, items, a record's values, its branches. */
  const closeFields = (schema: Json): void => {
    if (isObject(schema.properties)) for (const property of Object.values(schema.properties)) close(property);
    close(schema.additionalProperties);
    close(schema.items);
    for (const key of ["anyOf", "oneOf", "prefixItems"]) {
      const list = schema[key];
      if (Array.isArray(list)) for (const item of list) close(item);
    }
  };
  for (const media of bodies) close(media.schema);
}

/** Every schema that is a part of an `allOf` somewhere under `roots`. */
function allOfParts(roots: unknown[], deref: (schema: Json) => Json): Set<Json> {
  const parts = new Set<Json>();
  const seen = new Set<Json>();
  const visit = (node: unknown): void => {
    if (!isObject(node)) return;
    const schema = deref(node);
    if (seen.has(schema)) return;
    seen.add(schema);
    for (const value of Object.values(schema)) {
      if (Array.isArray(value)) value.forEach(visit);
      else visit(value);
    }
    if (Array.isArray(schema.allOf)) for (const part of schema.allOf) if (isObject(part)) parts.add(deref(part));
  };
  roots.forEach(visit);
  return parts;
}
