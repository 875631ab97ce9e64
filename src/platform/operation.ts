// Registers one operation of the interface: the scope check runs before validation, then
// idempotency, then quota, then the handler. Each route declares its scope and weight next to its
// path; the app keeps what was registered, so the quota table is read from the routes.
import { AsyncLocalStorage } from "node:async_hooks";
import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { z } from "zod";
import type { Scope, SiiTransport } from "../ports.ts";
import { acceptWeights } from "./accept.ts";
import { requireScope } from "./auth.ts";
import { chargeUnits, refundCharge } from "./charge.ts";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { failureResponse } from "./failure.ts";
import { idempotencyKey, withIdempotency } from "./idempotency.ts";
import { parseDryRun } from "./params.ts";
import type { OperationSpec } from "./quota.ts";
import { errorResponses, headerRefs } from "./schemas.ts";

/** Statuses every authenticated operation can answer, whatever it does. */
const COMMON_ERRORS = [401, 403, 413, 429, 500] as const;

export type OperationHandler = (c: Context<AppEnv>) => Promise<Response> | Response;

/**
 * Who may call an operation and what it costs (rules in src/platform/quota.ts). `write`: a POST
 * that changes state at the SII, so it honours `Idempotency-Key`.
 */
export interface Access {
  /** null: any valid token may call it. */
  scope: Scope | null;
  weight: number;
  write?: true;
}

/** The operations registered on each app, in registration order. */
const registered = new WeakMap<OpenAPIHono<AppEnv>, OperationSpec[]>();

/** The operations table of an app: every operation with the scope and weight its route declares. */
export function operationsOf(app: OpenAPIHono<AppEnv>): readonly OperationSpec[] {
  return registered.get(app) ?? [];
}

export function registerOperation(app: OpenAPIHono<AppEnv>, route: RouteConfig, access: Access, handler: OperationHandler): void {
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
  // A JSON body can be refused for its Content-Type before its fields are read; `dry_run` is
  // refused (400) where the operation has no preview.
  const dryRun = declaresDryRun(route);
  // An operation that reaches the SII (it documents 502) also meets its maintenance (503).
  const reachesSii = route.responses[502] !== undefined;
  const extraErrors = [
    ...(dryRun ? [] : [400]),
    ...(spec.changesState ? [409] : []),
    ...(route.request?.body ? [415] : []),
    ...(reachesSii ? [503] : []),
  ];
  const config = {
    operationId: operationId(spec),
    ...route,
    security: [{ ApiToken: [] }],
    middleware: dryRun ? [requireScope(spec.scope)] : [requireScope(spec.scope), refuseDryRun],
    "x-scope": spec.scope,
    "x-quota-weight": spec.weight,
    ...(spec.changesState ? { parameters: [...(route.parameters ?? []), { $ref: "#/components/parameters/Idempotency-Key" }] } : {}),
    responses: declaredHeaders({ ...errorResponses([...COMMON_ERRORS, ...extraErrors]), ...route.responses }, spec.changesState),
  } as RouteConfig;
  // The route's typed handler would need each route's own response type; registration is
  // generic here, so the handler is widened on purpose.
  app.openapi(config, ((c: Context<AppEnv>) => runOperation(c, spec, handler, dryRun)) as never);
}

/** Answers given before the token is known (401, 413: the body limit runs first) carry no quota headers. */
const NO_QUOTA_HEADERS = new Set(["401", "413"]);
/**
 * Answers never stored under an Idempotency-Key: refused before the key is read (401, 403, 413,
 * 415, 422) or released for a real retry (429, 503; idempotency.ts).
 */
const NEVER_REPLAYED = new Set(["401", "403", "413", "415", "422", "429", "503"]);

/** Each response with the headers the platform adds to it (X-Request-Id is added to every response by routes/openapi.ts). */
function declaredHeaders(responses: Record<string, object>, write: boolean): RouteConfig["responses"] {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const names = [
        ...(NO_QUOTA_HEADERS.has(status)
          ? []
          : (["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Quota-Units"] as const)),
        ...(write && !NEVER_REPLAYED.has(status) ? (["Idempotent-Replayed"] as const) : []),
      ];
      const own = (response as { headers?: Record<string, unknown> }).headers;
      return [status, { ...response, headers: { ...headerRefs(names), ...own } }];
    }),
  ) as RouteConfig["responses"];
}

/** Whether the route's query schema has `dry_run`: the OpenAPI document then lists it too. */
function declaresDryRun(route: RouteConfig): boolean {
  const query = route.request?.query as { shape?: Record<string, unknown> } | undefined;
  return query?.shape?.dry_run !== undefined;
}

/**
 * `dry_run` on an operation that has no preview is refused rather than ignored: ignored, the
 * caller would believe nothing happened while the real call ran.
 */
const refuseDryRun: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.query("dry_run") !== undefined) {
    throw new ApiError(400, "VALIDATION_ERROR", "dry_run: this operation has no dry run", {
      errors: [{ path: "dry_run", location: "query", message: "this operation has no dry run; leave the parameter out" }],
    });
  }
  await next();
};

/** A stable name for SDKs and the schema files: `post_sii_dte_caf_solicitar`. */
export function operationId(spec: OperationSpec): string {
  const words = spec.path
    .replace(/^\/api\/v1\//, "")
    .split("/")
    .filter((part) => part && !part.startsWith("{"));
  return [spec.method.toLowerCase(), ...words].join("_");
}

/**
 * The validated input of a request part. Registration is generic, so the handler's context does
 * not carry the route's input types; the schema passed here restores them.
 */
export function valid<T extends z.ZodType>(c: Context, target: "json" | "query" | "param", _schema: T): z.output<T> {
  return c.req.valid(target as never) as z.output<T>;
}

/** Whether this call asked for a preview (`dry_run`, already validated by the route's query schema). */
export function isDryRun(c: Context): boolean {
  return parseDryRun(c.req.query("dry_run")) === true;
}

/**
 * The output format of an operation that offers several: `formato` when the caller gave it,
 * else the offered media type the `Accept` header prefers (RFC 9110 §12.5.1: the most specific
 * range that matches gives a type its weight; a tie keeps the first offered, the default), so
 * `Accept: application/json` and any-type ranges keep JSON. The answer then varies by Accept.
 */
export function responseFormat<F extends string>(c: Context, formato: F, offered: Readonly<Record<F, string>>): F {
  if (c.req.query("formato") !== undefined) return formato;
  const accept = c.req.header("accept");
  if (!accept) return formato;
  c.header("Vary", "Accept");
  const weight = acceptWeights(accept);
  let best = formato;
  let bestWeight = weight(offered[formato]);
  for (const format of Object.keys(offered) as F[]) {
    const w = weight(offered[format]);
    if (w > bestWeight) [best, bestWeight] = [format, w];
  }
  return best;
}

async function runOperation(c: Context<AppEnv>, spec: OperationSpec, handler: OperationHandler, dryRun: boolean): Promise<Response> {
  // A preview is free because it cannot reach the SII: the handler gets a transport that refuses
  // every call, so an operation that forgot to honour `dry_run` fails instead of acting for free.
  // It is no attempt either, so it neither takes nor replays an Idempotency-Key.
  // The key is still checked, so a preview answers a malformed one as the real call would.
  const idempotent = spec.changesState && c.req.method === "POST";
  if (dryRun && isDryRun(c)) {
    if (idempotent) idempotencyKey(c);
    const deps = c.get("deps");
    c.set("deps", { ...deps, sii: offline(deps.sii) });
    return settle(c, handler);
  }
  const deps = c.get("deps");
  c.set("deps", { ...deps, sii: counting(deps.sii) });
  const calls = { made: 0 };
  const attempt = () => siiCalls.run(calls, () => charged(c, spec, handler, calls));
  // An answer is kept for replays only if the attempt reached the SII or was charged.
  const worthKeeping = () => calls.made > 0 || (c.get("quota")?.units ?? 0) > 0;
  return idempotent ? withIdempotency(c, attempt, worthKeeping) : attempt();
}

/** The SII calls of the operation running in this async context, so charging follows what happened. */
const siiCalls = new AsyncLocalStorage<{ made: number }>();
/** One counting wrapper per transport: caches keyed by the transport (SII tokens) keep working. */
const countingTransports = new WeakMap<SiiTransport, SiiTransport>();

function counting(sii: SiiTransport): SiiTransport {
  let wrapped = countingTransports.get(sii);
  if (!wrapped) {
    wrapped = {
      mode: sii.mode,
      sandbox: sii.sandbox,
      fetch: (request, options) => {
        const calls = siiCalls.getStore();
        if (calls) calls.made++;
        return sii.fetch(request, options);
      },
    };
    countingTransports.set(sii, wrapped);
  }
  return wrapped;
}

/** The transport of a dry run: same mode, no calls. */
function offline(sii: SiiTransport): SiiTransport {
  return {
    mode: sii.mode,
    fetch: async () => {
      throw new Error("a dry run tried to contact the SII");
    },
  };
}

/**
 * Runs the handler under quota. Units are given back when nothing reached the SII and the call
 * was refused (4xx: invalid input, a certificate the gateway cannot use), and on 500 or 503
 * whatever was called: the gateway failed, or the SII was unavailable, and the caller did not
 * get what it paid for (5xx keep the rule they had: 500 and 503 free, a 502 from the SII's side
 * charged). Once the SII was called, a later refusal (4xx) is charged, a validation error too:
 * the SII did the work (a folio request over MAX_AUTOR has already asked it twice).
 */
async function charged(
  c: Context<AppEnv>,
  spec: OperationSpec,
  handler: OperationHandler,
  calls: { readonly made: number },
): Promise<Response> {
  await chargeUnits(c, spec.weight);
  const res = await settle(c, handler);
  const failed = res.status === 500 || res.status === 503;
  const refusedBeforeSii = calls.made === 0 && res.status >= 400 && res.status < 500;
  if (failed || refusedBeforeSii) await refundCharge(c);
  return res;
}

/** Every outcome as a Response, so idempotency and refunds see errors too. */
async function settle(c: Context<AppEnv>, handler: OperationHandler): Promise<Response> {
  try {
    return await handler(c);
  } catch (err) {
    return failureResponse(c, err);
  }
}
