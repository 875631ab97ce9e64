// Validators built from the app's own OpenAPI 3.1 document (GET /openapi.json): an operation's
// request body, its path/query parameters, and each documented answer. Tests use them to check that
// what the server accepts and answers agrees with what the document promises. `#/components/...`
// references resolve against the document itself.
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { probeApp } from "./app.ts";

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are read loosely, by field name.
export type Json = any;

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/** The document the app serves, as a client would download it. */
export async function servedDocument(app?: { request: (path: string) => Response | Promise<Response> }): Promise<Json> {
  const res = await (app ?? probeApp().app).request("/openapi.json");
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  return res.json();
}

export interface DocumentedOperation {
  operationId: string;
  method: string;
  path: string;
  /** JSON pointer of the operation object inside the document. */
  pointer: string;
  op: Json;
}

/** Every operation of the document, in document order. */
export function documentedOperations(doc: Json): DocumentedOperation[] {
  const out: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      out.push({
        operationId: op.operationId ?? `${method} ${path}`,
        method: method.toUpperCase(),
        path,
        pointer: `/paths/${pointerToken(path)}/${method}`,
        op,
      });
    }
  }
  return out;
}

/** One JSON pointer token (RFC 6901). */
export function pointerToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Follows `$ref`s within the document (a parameter, a response, a schema). */
export function resolve(doc: Json, node: Json): Json {
  let current = node;
  for (let i = 0; current?.$ref && i < 32; i++) {
    const ref = String(current.$ref);
    if (!ref.startsWith("#/")) throw new Error(`external reference ${ref}`);
    current = ref
      .slice(2)
      .split("/")
      .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((n: Json, key: string) => n?.[key], doc);
    if (current === undefined) throw new Error(`unresolved reference ${ref}`);
  }
  return current;
}

export interface Check {
  valid: boolean;
  errors: ErrorObject[];
  /** The errors in one line each, `instancePath message`, for assertion messages. */
  text: string;
}

function checkWith(validate: ValidateFunction, value: unknown): Check {
  const valid = validate(value) as boolean;
  const errors = validate.errors ? [...validate.errors] : [];
  return {
    valid,
    errors,
    text: errors.map((e) => `${e.instancePath || "/"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`).join("\n"),
  };
}

export interface OperationValidators {
  operation: DocumentedOperation;
  /** The request body schema (JSON), or undefined when the operation takes none. */
  bodySchema: Json | undefined;
  body(value: unknown): Check;
  /** Path and query values as they travel (strings); numbers and booleans are read as the schema types them. */
  parameters(values: { path?: Record<string, string>; query?: Record<string, string> }): Check;
  /** The documented answer for this status (or `default`) and media type. */
  response(status: number, value: unknown, mediaType?: string): Check;
  /** The statuses the document lists for this operation. */
  statuses: string[];
}

export interface DocumentValidators {
  doc: Json;
  operations: DocumentedOperation[];
  /** Validators for one operation, by operationId. */
  forOperation(operationId: string): OperationValidators;
  /** A validator for any schema of the document, given as a JSON pointer (`#/components/schemas/Error`). */
  schemaAt(pointer: string): (value: unknown) => Check;
}

const DOC_ID = "https://gateway.test/openapi.json";

function newAjv(coerce: boolean): Ajv2020 {
  // strict: false because OpenAPI adds keywords of its own (`example`, `discriminator`, `xml`,
  // `externalDocs`) and the document carries non-schema members around the schemas.
  const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: coerce ? "array" : false, validateSchema: false });
  addFormats(ajv);
  return ajv;
}

/**
 * Validators for the document. The document is registered once as a schema resource so every
 * `#/components/...` reference resolves exactly as a client resolves it.
 */
export function validatorsFor(doc: Json): DocumentValidators {
  const strict = newAjv(false);
  // Parameters arrive as text: a query `anio=2024` is the integer 2024, as the server reads it.
  const coercing = newAjv(true);
  strict.addSchema(doc, DOC_ID);
  coercing.addSchema(doc, DOC_ID);
  const operations = documentedOperations(doc);
  const byId = new Map(operations.map((o) => [o.operationId, o]));
  const cache = new Map<string, ValidateFunction>();

  const compile = (ajv: Ajv2020, pointer: string, key: string): ValidateFunction => {
    let fn = cache.get(key);
    if (!fn) {
      fn = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
      cache.set(key, fn);
    }
    return fn;
  };

  const schemaAt = (pointer: string) => {
    const p = pointer.replace(/^#/, "");
    const fn = compile(strict, p, `s:${p}`);
    return (value: unknown) => checkWith(fn, value);
  };

  const forOperation = (operationId: string): OperationValidators => {
    const operation = byId.get(operationId);
    if (!operation) throw new Error(`no operation ${operationId} in the document`);
    const { op, pointer } = operation;
    const requestBody = op.requestBody ? resolve(doc, op.requestBody) : undefined;
    const bodySchema = requestBody?.content?.["application/json"]?.schema;
    const responses: Record<string, Json> = op.responses ?? {};

    // Parameters may be refs into components; inline them into one object schema per location.
    const params = (op.parameters ?? []).map((p: Json) => resolve(doc, p));
    const paramSchema = (where: "path" | "query") => {
      const list = params.filter((p: Json) => p.in === where);
      return {
        type: "object",
        properties: Object.fromEntries(list.map((p: Json) => [p.name, p.schema ?? {}])),
        required: list.filter((p: Json) => p.required).map((p: Json) => p.name),
        additionalProperties: false,
      };
    };
    const paramValidator = (where: "path" | "query") => {
      const key = `p:${pointer}:${where}`;
      let fn = cache.get(key);
      if (!fn) {
        // The inlined schemas keep their `#/components/...` refs: point them at the document.
        const text = JSON.stringify(paramSchema(where)).replace(/"\$ref":"#\//g, `"$ref":"${DOC_ID}#/`);
        fn = coercing.compile(JSON.parse(text));
        cache.set(key, fn);
      }
      return fn;
    };

    return {
      operation,
      bodySchema,
      statuses: Object.keys(responses),
      body(value) {
        if (!bodySchema) return { valid: value === undefined, errors: [], text: value === undefined ? "" : "the operation takes no body" };
        const at = `${op.requestBody.$ref ? String(op.requestBody.$ref).slice(1) : `${pointer}/requestBody`}/content/application~1json/schema`;
        return checkWith(compile(strict, at, `b:${at}`), value);
      },
      parameters(values) {
        const errors: ErrorObject[] = [];
        for (const where of ["path", "query"] as const) {
          const copy = { ...(values[where] ?? {}) };
          const check = checkWith(paramValidator(where), copy);
          errors.push(...check.errors.map((e) => ({ ...e, instancePath: `/${where}${e.instancePath}` })));
        }
        return { valid: errors.length === 0, errors, text: errors.map((e) => `${e.instancePath} ${e.message}`).join("\n") };
      },
      response(status, value, mediaType = "application/json") {
        const key = responses[String(status)] ? String(status) : responses[`${String(status)[0]}XX`] ? `${String(status)[0]}XX` : "default";
        const response = responses[key];
        if (!response) return { valid: false, errors: [], text: `status ${status} is not documented for ${operationId}` };
        const resolved = resolve(doc, response);
        const schema = resolved.content?.[mediaType]?.schema;
        if (!schema) return { valid: false, errors: [], text: `status ${status} documents no ${mediaType} answer for ${operationId}` };
        const at = response.$ref
          ? `${String(response.$ref).slice(1)}/content/${pointerToken(mediaType)}/schema`
          : `${pointer}/responses/${key}/content/${pointerToken(mediaType)}/schema`;
        return checkWith(compile(strict, at, `r:${at}`), value);
      },
    };
  };

  return { doc, operations, forOperation, schemaAt };
}
