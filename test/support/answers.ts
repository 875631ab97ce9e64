// Typed reads of the gateway's answers. A test reads a JSON answer through the schema its operation
// declares, so it gets the answer's types and checks, on every call, that the answer keeps its
// contract: a field the schema lacks, or one of another type, fails the test here rather than
// passing unnoticed (zod would drop an undeclared field; the comparison below refuses that).
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { expect } from "vitest";
import type { AppEnv } from "../../src/platform/context.ts";
import { ErrorBody, envelope } from "../../src/platform/schemas.ts";

/** A JSON answer read with `schema` (the route's response schema: an `envelope(...)` or the body itself). */
export async function answerOf<S extends z.ZodType>(res: Response, schema: S): Promise<z.output<S>> {
  return answerIn(await res.text(), schema, res.status);
}

/** `answerOf` for an answer already read as text (`status` only names it in a failure). */
export function answerIn<S extends z.ZodType>(text: string, schema: S, status?: number): z.output<S> {
  const raw: unknown = JSON.parse(text);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`);
    throw new Error(`HTTP ${status ?? "?"}: the answer does not match its schema (${problems.join("; ")}): ${text.slice(0, 400)}`);
  }
  // zod's records drop a `__proto__` key (a guard against prototype pollution), which an answer may
  // carry as data (an XML element so named): compared without it, as the parsed value holds it.
  const declared: unknown = JSON.parse(text, (key, value) => (key === "__proto__" ? undefined : value));
  expect(declared, "the answer carries only fields its schema declares").toEqual(parsed.data);
  return parsed.data;
}

/** Any operation's success envelope, for tests that run many operations alike and look at `data` as a whole. */
export const SuccessEnvelope = envelope(z.unknown());

/**
 * The 200 JSON schema an operation declares where the route keeps it inline (not exported): the
 * answer is still checked against its contract, and its data is `unknown` to the test.
 */
export function declaredAnswer(app: OpenAPIHono<AppEnv>, method: "get" | "post" | "put" | "delete", path: string): z.ZodType {
  for (const definition of app.openAPIRegistry.definitions) {
    if (definition.type !== "route" || definition.route.method !== method || definition.route.path !== path) continue;
    const ok = definition.route.responses[200];
    const media = ok && "content" in ok ? ok.content?.["application/json"] : undefined;
    const schema = media && "schema" in media ? media.schema : undefined;
    if (schema instanceof z.ZodType) return schema;
  }
  throw new Error(`${method} ${path} declares no JSON answer for 200`);
}

/** What sits at `path` in a part of an answer its schema leaves open (a normalized document), or undefined. */
export function valueAt(value: unknown, ...path: (string | number)[]): unknown {
  let at = value;
  // Own fields only: a JSON object's `constructor` is no field of the answer.
  for (const key of path)
    at = typeof at === "object" && at !== null && Object.hasOwn(at, key) ? (at as Record<string | number, unknown>)[key] : undefined;
  return at;
}

/** The error envelope (`src/platform/schemas.ts`'s `ErrorBody`), which every refusal answers with. */
export type ErrorAnswer = z.output<typeof ErrorBody>;

export function errorOf(res: Response): Promise<ErrorAnswer> {
  return answerOf(res, ErrorBody);
}

/** The OpenAPI document as the app builds it (`/openapi.json` serves it as JSON). */
export type OpenApiDocument = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;
type PathItem = NonNullable<OpenApiDocument["paths"]>[string];
export type OpenApiOperation = NonNullable<PathItem["get"]>;
/** One declared answer of an operation, or a `$ref` to one. */
export type OpenApiResponse = NonNullable<NonNullable<OpenApiOperation["responses"]>["default"]>;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** Every operation of the document, with its path and method. */
export function operationsIn(doc: OpenApiDocument): { path: string; method: (typeof METHODS)[number]; operation: OpenApiOperation }[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      return operation ? [{ path, method, operation }] : [];
    }),
  );
}

/**
 * The served OpenAPI document. Not parsed against a schema: it is the app's own document, which the
 * schema tests check against the committed one; the type is the one its generator returns.
 */
export async function documentOf(res: Response): Promise<OpenApiDocument> {
  expect(res.status).toBe(200);
  const doc: OpenApiDocument = await res.json();
  return doc;
}
