// A request for no operation says so, with or without a token: a wrong method is a 405 with
// `Allow` (the methods the path's routes answer), an unknown path a 404. The route table is public
// in /openapi.json, so this tells a stranger nothing.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler, NotFoundHandler } from "hono";
import { authenticate } from "./auth.ts";
import type { AppEnv } from "./context.ts";
import { ApiError, errorResponse } from "./errors.ts";
import { clip } from "./validation.ts";

/** The app's answer for a request no route took: 405 when the path is served for other methods, else 404. */
export function unknownRoute(app: OpenAPIHono<AppEnv>): NotFoundHandler<AppEnv> {
  return (c) => errorResponse(c, methodNotAllowed(c.req.method, allowedMethods(app, new URL(c.req.url).pathname)) ?? noRouteFor(c));
}

function noRouteFor(c: Context): ApiError {
  return new ApiError(404, "HTTP_404", `No route ${clip(`${c.req.method} ${new URL(c.req.url).pathname}`)}`);
}

/**
 * Authentication that first lets a request for no operation say so (a 405 or 404 before a 401).
 * The table is consulted only when the token check fails, so an authenticated call pays nothing
 * for it; its wrong methods reach `unknownRoute`.
 */
export function authenticateKnownRoute(app: OpenAPIHono<AppEnv>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    try {
      await authenticate(c, async () => {});
    } catch (err) {
      // A preflight that CORS did not answer keeps the ordinary answer (cors.ts).
      if (c.req.method === "OPTIONS") throw err;
      const allowed = allowedMethods(app, new URL(c.req.url).pathname);
      if (allowed.length === 0) throw noRouteFor(c);
      throw methodNotAllowed(c.req.method, allowed) ?? err;
    }
    await next();
  };
}

/** A 405 with `Allow` when the path exists (`allowed`) but not for this method; null when the method is served. */
function methodNotAllowed(method: string, allowed: string[]): ApiError | null {
  // HEAD is answered by the GET route.
  const served = method === "HEAD" ? "GET" : method;
  if (allowed.length === 0 || allowed.includes(served)) return null;
  return new ApiError(405, "HTTP_405", `Method ${method} is not allowed here; use ${allowed.join(", ")}`, {
    headers: { Allow: allowed.join(", ") },
  });
}

/** Each app's operations as [method, path pattern], compiled once, after registration. */
const routeTables = new WeakMap<OpenAPIHono<AppEnv>, { method: string; pattern: RegExp }[]>();

/** The methods that a registered route answers for this path (for 405 and `Allow`). */
function allowedMethods(app: OpenAPIHono<AppEnv>, pathname: string): string[] {
  let table = routeTables.get(app);
  if (!table) {
    table = app.routes
      .filter((route) => route.method !== "ALL" && !route.path.includes("*"))
      .map((route) => ({ method: route.method, pattern: new RegExp(`^${route.path.replace(/:[^/]+/g, "[^/]+")}$`) }));
    routeTables.set(app, table);
  }
  const methods = new Set<string>();
  for (const route of table) if (route.pattern.test(pathname)) methods.add(route.method);
  return [...methods].sort();
}
