// `dry_run`: a preview that validates everything and contacts nothing. An operation offers it by
// declaring the parameter in its query schema; elsewhere the parameter is refused.
import type { RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { SiiTransport } from "../ports/transport.ts";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { parseDryRun } from "./params.ts";

/** Whether the route's query schema has `dry_run`: the OpenAPI document then lists it too. */
export function declaresDryRun(route: RouteConfig): boolean {
  const query = route.request?.query as { shape?: Record<string, unknown> } | undefined;
  return query?.shape?.dry_run !== undefined;
}

/**
 * `dry_run` on an operation that has no preview is refused rather than ignored: ignored, the
 * caller would believe nothing happened while the real call ran.
 */
export const refuseDryRun: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.query("dry_run") !== undefined) {
    throw new ApiError(400, "VALIDATION_ERROR", "dry_run: this operation has no dry run", {
      errors: [{ path: "dry_run", location: "query", message: "this operation has no dry run; leave the parameter out" }],
    });
  }
  await next();
};

/** Whether this call asked for a preview (`dry_run`, already validated by the route's query schema). */
export function isDryRun(c: Context): boolean {
  return parseDryRun(c.req.query("dry_run")) === true;
}

/**
 * The transport of a dry run: same mode, no calls, so an operation that forgot to honour
 * `dry_run` fails instead of acting for free.
 */
export function offline(sii: SiiTransport): SiiTransport {
  return {
    mode: sii.mode,
    fetch: async () => {
      throw new Error("a dry run tried to contact the SII");
    },
  };
}
