// Fuzzing helpers driven by the OpenAPI document: every operation it lists, a valid-looking
// request built from its schemas, and mutations of one part at a time (a field, a parameter, the
// body as a whole, a header). The invariants live in `checkAnswer`.
import fc from "fast-check";

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are read loosely, by field name.
type Json = any;

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  op: Json;
  params: { name: string; in: "path" | "query"; required: boolean; schema: Json }[];
  bodySchema?: Json;
  auth: "api" | "admin" | "none";
}

export interface FuzzRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: [string, string][];
  /** Raw body text, or undefined for none. */
  body?: string;
}

/** What a case changed, so a validation answer can be checked for naming it. */
export interface Mutation {
  kind: string;
  /** `path`/`query` parameter name, or the dotted body field; undefined for whole-body and header cases. */
  field?: string;
  location: "path" | "query" | "body" | "header";
  value?: unknown;
}

export function operationsOf(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const params = (op.parameters ?? []).map((p: Json) => deref(doc, p)).filter((p: Json) => p.in === "path" || p.in === "query");
      const security = JSON.stringify(op.security ?? []);
      ops.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId ?? `${method} ${path}`,
        op,
        params: params.map((p: Json) => ({ name: p.name, in: p.in, required: p.required === true, schema: deref(doc, p.schema ?? {}) })),
        bodySchema: op.requestBody?.content?.["application/json"]?.schema,
        auth: security.includes("AdminToken") ? "admin" : security.includes("ApiToken") ? "api" : "none",
      });
    }
  }
  return ops;
}

function deref(doc: Json, schema: Json): Json {
  let s = schema;
  for (let i = 0; s?.$ref && i < 20; i++)
    s = s.$ref
      .replace(/^#\//, "")
      .split("/")
      .reduce((node: Json, key: string) => node?.[key], doc);
  return s ?? {};
}

/** A value the schema accepts, from its examples where it has them. */
export function sampleOf(doc: Json, schema: Json, depth = 0): unknown {
  const s = deref(doc, schema);
  if (isPlainObject(s.example) && (s.properties || s.allOf)) {
    // An object's example may leave out required fields; those come from their own schemas.
    const generated = sampleOf(doc, { ...s, example: undefined }, depth + 1);
    return { ...(isPlainObject(generated) ? generated : {}), ...s.example };
  }
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const choices = s.oneOf ?? s.anyOf;
  if (Array.isArray(choices)) return sampleOf(doc, choices.find((c: Json) => deref(doc, c).type !== "null") ?? choices[0], depth + 1);
  if (Array.isArray(s.allOf)) {
    return Object.assign({}, ...s.allOf.map((part: Json) => sampleOf(doc, part, depth + 1)));
  }
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  if (type === "object" || s.properties) {
    const out: Record<string, unknown> = {};
    if (depth > 8) return out;
    for (const name of s.required ?? []) out[name] = sampleOf(doc, s.properties?.[name] ?? {}, depth + 1);
    return out;
  }
  if (type === "array") return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sampleOf(doc, s.items ?? {}, depth + 1));
  if (type === "integer" || type === "number") return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
  if (type === "boolean") return true;
  if (s.format === "date") return "2024-05-01";
  if (s.format === "date-time") return "2024-05-01T10:00:00Z";
  if (s.format === "email") return "contacto@example.cl";
  if (s.format === "uri" || s.format === "url") return "http://127.0.0.1:3128";
  return "x".repeat(Math.max(1, s.minLength ?? 5));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Dotted paths of every field in a sample (objects and leaves), deepest last. */
export function fieldPaths(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object") return prefix ? [prefix] : [];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  const here = prefix ? [prefix] : [];
  return [...here, ...entries.flatMap(([key, v]) => fieldPaths(v, prefix ? `${prefix}.${key}` : key))];
}

const MISSING = Symbol("missing");

function setPath(root: unknown, path: string, value: unknown): unknown {
  const copy = structuredClone(root);
  const keys = path.split(".");
  let node: Json = copy;
  for (const key of keys.slice(0, -1)) node = node[key];
  const last = keys[keys.length - 1] as string;
  if (value === MISSING) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

/** Hostile values by kind; each kind is what the issue lists. */
const VALUES: Record<string, unknown[]> = {
  wrong_type: [12345, true, null, [], {}, "texto", [1, "a"], { a: 1 }],
  empty: ["", [], {}],
  huge: ["A".repeat(20_000), "9".repeat(5_000), Array.from({ length: 2_000 }, () => "x")],
  unicode: ["漢字テスト", "😀💥", "\u{10FFFF}\u{E000}", "Ωmega ≈ ç√", "\uFEFF\u202Etexto"],
  control: ["\u0000", "a\u0000b", "\u0007\u001b[31m", "line\r\nX-Injected: 1", "\t\v\f"],
  numbers: [-1, -2_147_483_649, 2 ** 53 + 1, 1e308, -1e308, 0.5, -0, "99999999999999999999", "1e400", "NaN", "-1"],
  bad_rut: ["76192083-0", "76192083-K", "76.192.083-9", "0-0", "-9", "761920839", "99999999999-9"],
  bad_date: ["2024-02-30", "2024-13-01", "202413", "200000", "0000-00-00", "2024-5-1", "31/12/2024", "99999999"],
};

const KINDS = Object.keys(VALUES);

export interface Case {
  target:
    | { location: "path" | "query" | "body"; index: number }
    | { location: "whole-body"; variant: number }
    | { location: "header"; variant: number };
  kind: string;
  pick: number;
  missing: boolean;
}

export const caseArbitrary: fc.Arbitrary<Case> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      target: fc.record({ location: fc.constantFrom("path" as const, "query" as const, "body" as const), index: fc.nat(1000) }),
      kind: fc.constantFrom(...KINDS),
      pick: fc.nat(1000),
      missing: fc.nat(4).map((n) => n === 0),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      target: fc.record({ location: fc.constant("whole-body" as const), variant: fc.nat(1000) }),
      kind: fc.constant("body"),
      pick: fc.nat(1000),
      missing: fc.constant(false),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      target: fc.record({ location: fc.constant("header" as const), variant: fc.nat(1000) }),
      kind: fc.constant("header"),
      pick: fc.nat(1000),
      missing: fc.constant(false),
    }),
  },
);

export interface Baseline {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
}

export function baselineOf(doc: Json, operation: Operation): Baseline {
  const params: Record<string, string> = {};
  const query: Record<string, string> = {};
  for (const p of operation.params) {
    const value = String(sampleOf(doc, p.schema));
    if (p.in === "path") params[p.name] = value;
    else if (p.required) query[p.name] = value;
  }
  return { params, query, body: operation.bodySchema ? sampleOf(doc, operation.bodySchema) : undefined };
}

const WRONG_CONTENT_TYPES = ["text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""];

/** The request a case describes, and what it changed. */
export function buildCase(
  operation: Operation,
  base: Baseline,
  c: Case,
  credentials: [string, string][],
): { request: FuzzRequest; mutation: Mutation } {
  const params = { ...base.params };
  const query = { ...base.query };
  let body = base.body;
  let contentType: string | undefined = base.body === undefined ? undefined : "application/json";
  let rawBody: string | undefined;
  const headers: [string, string][] = [...credentials];
  let mutation: Mutation;
  const values = VALUES[c.kind] ?? [];
  const value = values[c.pick % Math.max(1, values.length)];

  if (c.target.location === "path" || c.target.location === "query") {
    const list = operation.params.filter((p) => p.in === c.target.location);
    if (list.length === 0) return buildCase(operation, base, { ...c, target: { location: "body", index: c.target.index } }, credentials);
    const param = list[c.target.index % list.length]!;
    const target = param.in === "path" ? params : query;
    if (c.missing && param.in === "query") delete target[param.name];
    else target[param.name] = typeof value === "string" ? value : JSON.stringify(value ?? "");
    mutation = { kind: c.missing ? "missing" : c.kind, field: param.name, location: param.in, value: target[param.name] };
  } else if (c.target.location === "body") {
    const fields = body === undefined ? [] : fieldPaths(body);
    if (fields.length === 0) {
      return buildCase(operation, base, { ...c, target: { location: "whole-body", variant: c.pick } }, credentials);
    }
    const field = fields[c.target.index % fields.length]!;
    body = setPath(body, field, c.missing ? MISSING : value);
    mutation = { kind: c.missing ? "missing" : c.kind, field, location: "body", value: c.missing ? undefined : value };
  } else if (c.target.location === "whole-body") {
    const text = JSON.stringify(base.body ?? {});
    const variants: (() => void)[] = [
      () => (rawBody = text.slice(0, Math.max(1, c.pick % Math.max(2, text.length)))),
      () => (rawBody = "{"),
      () => (rawBody = '{"a":}'),
      () => (rawBody = `\uFEFF${text}`),
      () => (rawBody = "null"),
      () => (rawBody = "[]"),
      () => (rawBody = "123"),
      () => (rawBody = '"texto"'),
      () => (rawBody = ""),
      () => {
        rawBody = text;
        contentType = WRONG_CONTENT_TYPES[c.pick % WRONG_CONTENT_TYPES.length];
      },
      () => {
        rawBody = text;
        contentType = "application/json; charset=utf-16";
      },
      () => {
        rawBody = undefined;
        contentType = undefined;
      },
      () => (rawBody = `${text.slice(0, -1)},"extra":${JSON.stringify("x".repeat(30_000))}}`),
      () => (rawBody = "[".repeat(5_000)),
    ];
    const variant = c.target.variant % variants.length;
    variants[variant]!();
    mutation = { kind: `body#${variant}`, location: "body", value: rawBody?.slice(0, 80) };
  } else {
    const variants: (() => void)[] = [
      () => headers.push(...credentials),
      () => headers.push(["x-request-id", "r".repeat(16_000)]),
      () => headers.push(["idempotency-key", "k".repeat(16_000)]),
      () => headers.push(["idempotency-key", "\u00e9\u00e8"]),
      () => headers.push(["x-api-token", "x".repeat(8_000)]),
      () => {
        contentType = "application/json";
        headers.push(["content-type", "text/plain"]);
      },
      () => headers.push(["content-length", "999999999"]),
      () => headers.push(["x-request-id", "a,b"], ["x-request-id", "c"]),
    ];
    const variant = (c.target as { variant: number }).variant % variants.length;
    variants[variant]!();
    mutation = { kind: `header#${variant}`, location: "header" };
  }

  let path = operation.path;
  for (const [name, v] of Object.entries(params)) path = path.replace(`{${name}}`, encodeURIComponent(v));
  if (contentType) headers.push(["content-type", contentType]);
  const text = c.target.location === "whole-body" ? rawBody : body === undefined ? undefined : JSON.stringify(body);
  return { request: { method: operation.method, path, query, headers, body: operation.method === "GET" ? undefined : text }, mutation };
}

export function toRequest(base: string, r: FuzzRequest): Request {
  const url = new URL(r.path, base);
  for (const [k, v] of Object.entries(r.query)) url.searchParams.set(k, v);
  const headers = new Headers();
  for (const [k, v] of r.headers) {
    // Headers refuse some bytes outright; a client could still send them, the app never sees them.
    try {
      headers.append(k, v);
    } catch {
      headers.append(k, encodeURIComponent(v));
    }
  }
  return new Request(url, { method: r.method, headers, body: r.body });
}

/** `CODE` names in backticks in a response description: the codes the document promises for that status. */
export function documentedCodes(operation: Operation, status: number): string[] {
  const description: string = operation.op.responses?.[String(status)]?.description ?? "";
  return [...description.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] as string);
}

/** Answers the router gives before any operation runs; valid for every path. */
const ROUTE_LEVEL: Record<number, string[]> = { 404: ["HTTP_404"], 405: ["HTTP_405"], 413: ["PAYLOAD_TOO_LARGE"] };

/** What the platform answers by status when an operation documents nothing itself. */
const PLATFORM: Record<number, string[]> = {
  400: ["VALIDATION_ERROR"],
  401: ["HTTP_401", "AUTH_ERROR"],
  403: ["INSUFFICIENT_SCOPE", "ACCOUNT_BLOCKED"],
  404: ["HTTP_404"],
  409: ["IDEMPOTENCY_CONFLICT", "IDEMPOTENCY_IN_PROGRESS"],
  415: ["HTTP_415"],
  422: ["VALIDATION_ERROR"],
};

/** Codes of refusals: such answers must cost nothing unless the SII was called first (then they are charged). */
export const UNCHARGED = new Set(["VALIDATION_ERROR", "HTTP_401", "HTTP_405", "HTTP_415", "PAYLOAD_TOO_LARGE", "INSUFFICIENT_SCOPE"]);

/** The unchanged request, so each case can be judged against what the baseline already got wrong. */
export function plainRequest(operation: Operation, base: Baseline, credentials: [string, string][]): FuzzRequest {
  let path = operation.path;
  for (const [name, v] of Object.entries(base.params)) path = path.replace(`{${name}}`, encodeURIComponent(v));
  const headers: [string, string][] = [...credentials];
  if (base.body !== undefined) headers.push(["content-type", "application/json"]);
  const body = base.body === undefined || operation.method === "GET" ? undefined : JSON.stringify(base.body);
  return { method: operation.method, path, query: { ...base.query }, headers, body };
}

/** `location:path` of each field error in an answer. */
export function errorKeys(body: Json): Set<string> {
  return new Set((Array.isArray(body?.errors) ? body.errors : []).map((e: Json) => `${e.location}:${e.path}`));
}

/** Every invariant for one answer; returns the problems found (empty when it holds). */
export function checkAnswer(
  operation: Operation,
  mutation: Mutation,
  status: number,
  contentType: string,
  body: Json,
  baselineErrors: Set<string> = new Set(),
  baselineMessage?: string,
): string[] {
  const problems: string[] = [];
  if (status >= 500 && status !== 502 && status !== 503 && status !== 501) problems.push(`status ${status}`);
  if (status < 400) return problems;
  if (!contentType.includes("application/json")) return [...problems, `error answer of type ${contentType}`];
  if (
    body?.success !== false ||
    typeof body.error_code !== "string" ||
    typeof body.message !== "string" ||
    typeof body.request_id !== "string"
  )
    return [...problems, "not the error envelope"];
  // Operations outside the API (admin, sandbox) document few error answers; for them the
  // platform's own codes per status count too. API operations must document each one.
  const platform = operation.auth === "api" ? [] : (PLATFORM[status] ?? []);
  const allowed = [...documentedCodes(operation, status), ...platform, ...(ROUTE_LEVEL[status] ?? [])];
  if (!allowed.includes(body.error_code))
    problems.push(`${status} ${body.error_code} is not documented for this operation (documented: ${allowed.join(", ") || "none"})`);
  // The same refusal the unchanged request got: the mutation did not cause it.
  if (body.message === baselineMessage) return problems;
  // The SII's own refusal of a request the gateway let through (say, no more folios for now): it
  // names the SII's reason in `details`, not a field of the request.
  if (typeof body.details?.sii_message === "string") return problems;
  if (body.error_code === "VALIDATION_ERROR" && mutation.field !== undefined) {
    // Only errors the unchanged request did not have are this mutation's doing.
    const errors: Json[] = (Array.isArray(body.errors) ? body.errors : []).filter(
      (e: Json) => !baselineErrors.has(`${e.location}:${e.path}`),
    );
    const field = mutation.field;
    const leaf =
      field
        .split(".")
        .filter((part) => !/^\d+$/.test(part))
        .pop() ?? field;
    const names = errors.some(
      (e) =>
        e.location === mutation.location &&
        (e.path === field || field.startsWith(`${e.path}.`) || String(e.path).startsWith(`${field}.`) || String(e.message).includes(leaf)),
    );
    const onlyOld = errors.length === 0 && baselineErrors.size > 0;
    if (!names && !onlyOld && !String(body.message).includes(leaf))
      problems.push(`validation answer does not name ${mutation.location} field ${field}`);
  }
  if (body.error_code === "VALIDATION_ERROR" && mutation.field === undefined && !Array.isArray(body.errors) && mutation.location === "body")
    problems.push("validation answer without errors[]");
  return problems;
}

// ---- The positive direction: requests the document calls valid ----

/** A RUT's check digit (módulo 11, weights 2..7 from the right), computed here independently of src/. */
export function rutDv(body: number): string {
  let sum = 0;
  let weight = 2;
  for (let n = body; n > 0; n = Math.floor(n / 10)) {
    sum += (n % 10) * weight;
    weight = weight === 7 ? 2 : weight + 1;
  }
  const dv = 11 - (sum % 11);
  return dv === 11 ? "0" : dv === 10 ? "K" : String(dv);
}

/** A pattern that describes a RUT (`digits-[0-9kK]`): values drawn for it carry the right check digit. */
function isRutPattern(pattern: string): boolean {
  return pattern.includes("-[\\dkK]") || pattern.includes("-[0-9kK]");
}

/** RUTs with a right check digit: mostly the sandbox's taxpayers, sometimes anyone. */
export function rutArbitrary(known: string[]): fc.Arbitrary<string> {
  const anyone = fc.integer({ min: 1_000_000, max: 99_999_999 }).map((n) => `${n}-${rutDv(n)}`);
  return known.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: anyone }) : anyone;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");
const dateArbitrary = fc
  .record({ y: fc.integer({ min: 2000, max: 2030 }), m: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 28 }) })
  .map(({ y, m, d }) => `${y}-${pad(m)}-${pad(d)}`);
const emailArbitrary = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/), fc.stringMatching(/^[a-z]{2,12}$/), fc.constantFrom("cl", "com", "org"))
  .map(([user, host, tld]) => `${user}@${host}.${tld}`);

/** Keywords that describe a schema without constraining its values. */
const ANNOTATIONS = new Set([
  "example",
  "examples",
  "description",
  "title",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
  "externalDocs",
]);

const CONDITIONS = new Set(["if", "then", "else", "not"]);

export interface ValidOptions {
  /** RUTs to favour for RUT-pattern fields. */
  ruts: string[];
  /** Longest string drawn where the schema sets no maxLength (values stay readable in findings). */
  maxString?: number;
}

/**
 * Values the JSON Schema accepts, from its own keywords: const, enum, oneOf/anyOf (a branch),
 * allOf (merged objects), object (every required key, optional keys or not, nothing extra),
 * array (its length bounds), string (pattern, length bounds, format), integer/number (bounds).
 * A value drawn here may still fail a rule the keywords combine (oneOf matching two branches):
 * callers check the final request with the document's validator and discard those.
 */
export function validArbitrary(doc: Json, schema: Json, options: ValidOptions, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(doc, schema ?? {});
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const choices = s.oneOf ?? s.anyOf;
  if (Array.isArray(choices) && choices.length > 0) {
    const own = { ...s, oneOf: undefined, anyOf: undefined };
    const hasOwn = own.type || own.properties;
    return fc.oneof(
      ...choices.map((c: Json) =>
        hasOwn ? validArbitrary(doc, { allOf: [own, c] }, options, depth + 1) : validArbitrary(doc, c, options, depth + 1),
      ),
    );
  }
  if (Array.isArray(s.allOf)) {
    const parts = [{ ...s, allOf: undefined }, ...s.allOf].map((p: Json) => deref(doc, p));
    const alternatives = parts.find((p: Json) => Array.isArray(p.oneOf ?? p.anyOf));
    if (alternatives) {
      // Distribute the one-of over the other parts: allOf[A, oneOf[B, C]] = oneOf[allOf[A, B], allOf[A, C]].
      const rest = parts.filter((p: Json) => p !== alternatives);
      const own = { ...alternatives, oneOf: undefined, anyOf: undefined };
      return fc.oneof(
        ...(alternatives.oneOf ?? alternatives.anyOf).map((c: Json) =>
          validArbitrary(doc, { allOf: [...rest, own, c] }, options, depth + 1),
        ),
      );
    }
    // A part that only closes the whole (`unevaluatedProperties: false`) is an object's part too.
    const objects = parts.filter((p: Json) => p.properties || p.type === "object" || p.required || p.unevaluatedProperties !== undefined);
    // Conditions (if/then/else, not) are left to the caller's validator, which discards misses.
    const constraining = parts.filter((p: Json) =>
      Object.keys(p).some((k) => p[k] !== undefined && !ANNOTATIONS.has(k) && !CONDITIONS.has(k)),
    );
    if (objects.length === constraining.length) {
      const properties: Record<string, Json> = {};
      for (const p of objects) {
        for (const [name, prop] of Object.entries<Json>(p.properties ?? {})) {
          properties[name] = properties[name] ? { allOf: [properties[name], prop] } : prop;
        }
      }
      const required = [...new Set(objects.flatMap((p: Json) => p.required ?? []))];
      return validArbitrary(doc, { type: "object", properties, required }, options, depth + 1);
    }
    // Scalars constrained in parts: the most specific part decides, the validator checks the rest.
    return validArbitrary(doc, parts[parts.length - 1], options, depth + 1);
  }
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ["object"] : [];
  const type = types.find((t) => t !== "null") ?? (s.pattern || s.format ? "string" : undefined);
  if (type === "object") {
    if (depth > 10) return fc.constant({});
    const required = new Set<string>(s.required ?? []);
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, prop] of Object.entries<Json>(s.properties ?? {})) {
      if (deref(doc, prop).readOnly) continue;
      model[name] = validArbitrary(doc, prop, options, depth + 1);
    }
    return fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
  }
  if (type === "array") {
    const minLength = s.minItems ?? 0;
    const maxLength = Math.min(s.maxItems ?? minLength + 3, minLength + 3);
    return fc.array(validArbitrary(doc, s.items ?? {}, options, depth + 1), { minLength, maxLength });
  }
  if (type === "integer") {
    const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -2_147_483_648);
    const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 2_147_483_647);
    return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
  }
  if (type === "number") {
    const min = s.minimum ?? s.exclusiveMinimum ?? -1e9;
    const max = s.maximum ?? s.exclusiveMaximum ?? 1e9;
    return fc
      .double({ min, max, noNaN: true, noDefaultInfinity: true })
      .filter(
        (n) => (s.exclusiveMinimum === undefined || n > s.exclusiveMinimum) && (s.exclusiveMaximum === undefined || n < s.exclusiveMaximum),
      );
  }
  if (type === "boolean") return fc.boolean();
  if (type === "string") {
    const minLength = s.minLength ?? 0;
    const maxLength = s.maxLength ?? Math.max(minLength, options.maxString ?? 40);
    const fits = (v: string) => [...v].length >= minLength && [...v].length <= maxLength;
    if (s.pattern && isRutPattern(s.pattern)) return rutArbitrary(options.ruts).filter(fits);
    if (s.pattern) {
      const regex = new RegExp(s.pattern);
      try {
        return fc.stringMatching(regex).filter(fits);
      } catch {
        // A pattern fast-check cannot draw from (a lookahead): the schema's example, else strings it matches.
        return s.example !== undefined
          ? fc.constant(s.example)
          : fc.string({ minLength, maxLength }).filter((v) => regex.test(v) && fits(v));
      }
    }
    if (s.format === "date") return dateArbitrary;
    if (s.format === "date-time") return dateArbitrary.map((d) => `${d}T12:00:00Z`);
    if (s.format === "email") return emailArbitrary.filter(fits);
    if (s.format === "uri" || s.format === "url") return fc.constantFrom("https://example.cl/", "http://127.0.0.1:3128");
    return fc.string({ minLength, maxLength, unit: "grapheme" });
  }
  if (types.includes("null")) return fc.constant(null);
  // No type: any JSON value fits; a small one.
  return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
}
