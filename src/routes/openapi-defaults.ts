// Request bodies' defaults in words. openapi-typescript reads a property's `default` as "the value is
// always there" (its `defaultNonNullable`, on by default) and types the field as required; it spares
// only schemas written inline under `requestBody`, not the named components this document uses. A
// default in a request is the server's to apply, so a request-only component states it in its
// description instead: the field stays optional in every generated client, and reads the same to a person.

type Schema = { [key: string]: unknown; description?: string; default?: unknown; properties?: Record<string, Schema> };
type Components = Record<string, unknown>;

const REF = /"#\/components\/schemas\/([^"]+)"/g;

/** The components a value refers to, and those they refer to in turn. */
function reachable(start: unknown, components: Components): Set<string> {
  const seen = new Set<string>();
  const queue = [JSON.stringify(start)];
  while (queue.length) {
    for (const [, name] of (queue.pop() ?? "").matchAll(REF)) {
      if (name === undefined || seen.has(name)) continue;
      seen.add(name);
      queue.push(JSON.stringify(components[name] ?? {}));
    }
  }
  return seen;
}

function describeDefaults(schema: unknown): void {
  if (!schema || typeof schema !== "object") return;
  const object = schema as Schema;
  for (const property of Object.values(object.properties ?? {})) {
    if (property.default !== undefined) {
      const value = typeof property.default === "string" ? property.default : JSON.stringify(property.default);
      property.description = `${property.description ? `${property.description}; ` : ""}default \`${value}\``;
      delete property.default;
    }
  }
  for (const [key, value] of Object.entries(object)) {
    if (key !== "properties" && key !== "example") describeDefaults(value);
  }
  for (const property of Object.values(object.properties ?? {})) describeDefaults(property);
}

/** Moves `default` into the description in components that only request bodies use. */
export function requestDefaultsInWords(paths: Record<string, unknown>, components: Components): void {
  const bodies: unknown[] = [];
  const answers: unknown[] = [];
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item as Record<string, { requestBody?: unknown; responses?: unknown }>)) {
      bodies.push(operation.requestBody);
      answers.push(operation.responses);
    }
  }
  const answered = reachable(answers, components);
  for (const name of reachable(bodies, components)) {
    if (!answered.has(name)) describeDefaults(components[name]);
  }
}
