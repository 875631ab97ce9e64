// Registers one operation of the interface: the scope check runs before validation, then
// idempotency, then quota, then the handler (run-operation.ts). Each route declares its scope and
// weight next to its path; the app keeps what was registered, so the quota table is read from the
// routes. The handler gets the route's own types: `c.req.valid("json" | "query" | "param" |
// "header")` answers what the route's schemas output, as `app.openapi` does.
import type { OpenAPIHono, RouteConfig, RouteHandler, z } from "@hono/zod-openapi";
import type { Context, ValidationTargets } from "hono";
import type { Scope } from "../ports/access.ts";
import { requireScope } from "./auth.ts";
import type { AppEnv } from "./context.ts";
import { announceDeprecation, type Deprecation, deprecationNote } from "./deprecation.ts";
import { declaresDryRun, refuseDryRun } from "./dry-run.ts";
import { slicedJsonBody } from "./json-body.ts";
import { operationResponses } from "./operation-responses.ts";
import type { OperationSpec } from "./quota.ts";
import { type Handler, runOperation } from "./run-operation.ts";
import { bodyHook } from "./validation.ts";

/** The context of route `R`'s handler: its path's parameters and its validated input, typed from its schemas. */
export type OperationContext<R extends RouteConfig> = Parameters<RouteHandler<R, AppEnv>>[0];
type PathOf<R extends RouteConfig> = OperationContext<R> extends Context<AppEnv, infer P, infer _I> ? P : never;
type InputOf<R extends RouteConfig> = OperationContext<R> extends Context<AppEnv, infer _P, infer I> ? I : never;

/** An operation's handler; errors it throws become the error envelope (failure.ts). */
export type OperationHandler<R extends RouteConfig> = Handler<OperationContext<R>>;

/**
 * Who may call an operation and what it costs (rules in src/platform/quota.ts). `write`: a POST
 * that changes state at the SII, so it honours `Idempotency-Key`.
 */
export interface Access {
  /** null: any valid token may call it. */
  scope: Scope | null;
  weight: number;
  write?: true;
  /** Announced as deprecated in the document and on every answer (deprecation.ts). */
  deprecated?: Deprecation;
}

/** The operations registered on each app, in registration order. */
const registered = new WeakMap<OpenAPIHono<AppEnv>, OperationSpec[]>();

/** The operations table of an app: every operation with the scope and weight its route declares. */
export function operationsOf(app: OpenAPIHono<AppEnv>): readonly OperationSpec[] {
  return registered.get(app) ?? [];
}

export function registerOperation<R extends RouteConfig>(
  app: OpenAPIHono<AppEnv>,
  route: R,
  access: Access,
  handler: OperationHandler<R>,
): void {
  const spec: OperationSpec = {
    method: route.method.toUpperCase() as OperationSpec["method"],
    path: route.path,
    scope: access.scope,
    weight: access.weight,
    changesState: access.write === true,
  };
  const table = registered.get(app) ?? [];
  if (table.some((op) => op.method === spec.method && op.path === spec.path)) {
    throw new Error(`${spec.method} ${spec.path} is registered twice`);
  }
  registered.set(app, [...table, spec]);
  const dryRun = declaresDryRun(route);
  const checks = dryRun ? [requireScope(spec.scope), slicedJsonBody] : [requireScope(spec.scope), refuseDryRun, slicedJsonBody];
  const deprecated = access.deprecated;
  const config: RouteConfig = {
    operationId: operationId(spec),
    ...route,
    security: [{ ApiToken: [] }],
    // A large body is read after the checks that need none of it (json-body.ts).
    middleware: deprecated ? [announceDeprecation(deprecated), ...checks] : checks,
    ...(deprecated ? { deprecated: true, description: [route.description, deprecationNote(deprecated)].filter(Boolean).join("\n\n") } : {}),
    "x-scope": spec.scope,
    "x-quota-weight": spec.weight,
    ...(spec.changesState ? { parameters: [...(route.parameters ?? []), { $ref: "#/components/parameters/Idempotency-Key" }] } : {}),
    responses: operationResponses(route, spec, dryRun),
  };
  // The document is built from `config` (the platform's additions); the handler's types come
  // from the route as declared, whose request schemas `config` keeps unchanged.
  app.openapi<RouteConfig, InputOf<R>, PathOf<R>>(config, (c) => runOperation(c, spec, handler, dryRun), strictBody(route));
}

/**
 * The validation hook of a route with a JSON body: unknown body fields refused (validation.ts
 * `bodyHook`). Every `app.openapi` of a route with a body passes it; a test holds every operation to it.
 */
export function strictBody(route: RouteConfig) {
  const media = route.request?.body?.content?.["application/json"];
  const schema = media && "schema" in media ? media.schema : null;
  if (!schema || typeof schema !== "object" || !("_zod" in schema)) return undefined;
  // The validator awaits its hook; Hono's type has no place for one that answers nothing later.
  return bodyHook(schema as z.core.$ZodType) as never;
}

/** A stable name for SDKs and the schema files: `post_sii_dte_caf_solicitar`. */
export function operationId(spec: OperationSpec): string {
  const words = spec.path
    .replace(/^\/api\/v1\//, "")
    .split("/")
    .filter((part) => part && !part.startsWith("{"));
  return [spec.method.toLowerCase(), ...words].join("_");
}

/**
 * The context of any operation whose validated input includes `Out` (`{ json: { auth: RcvAuth } }`):
 * what a helper shared by several operations' handlers takes, reading `c.req.valid(…)` typed.
 */
export type ContextWith<Out extends Partial<Record<keyof ValidationTargets, unknown>>> = Context<AppEnv, string, { out: Out }>;
