// The document says what the server does with a body field it does not know: refuses it
// (src/platform/unknown-fields.ts). zod writes a plain object without `additionalProperties`, so
// every object a request body reaches is closed here (`additionalProperties: false`), unless it
// says what else it takes (a record's values, the SII structures that pass their tags through).
// Generators then type request bodies without an index signature, and validators refuse as the server does.

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === "object" && !Array.isArray(value);

export function closeRequestBodies(paths: Json, schemas: Json): void {
  const seen = new Set<Json>();
  const close = (schema: unknown): void => {
    if (!isObject(schema) || seen.has(schema)) return;
    seen.add(schema);
    if (typeof schema.$ref === "string") close(schemas[schema.$ref.replace("#/components/schemas/", "")]);
    if (isObject(schema.properties)) {
      schema.additionalProperties ??= false;
      for (const property of Object.values(schema.properties)) close(property);
    }
    close(schema.additionalProperties);
    close(schema.items);
    for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
      const list = schema[key];
      if (Array.isArray(list)) for (const item of list) close(item);
    }
  };
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item as Json)) {
      const body = isObject(operation) ? (operation.requestBody as Json | undefined) : undefined;
      const content = isObject(body?.content) ? body.content : {};
      for (const media of Object.values(content)) if (isObject(media)) close(media.schema);
    }
  }
}
