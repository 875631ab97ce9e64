// The app's first middleware: Server-Timing on every answer; then request id and one access-log
// line per request (no bodies, no query strings, no headers: those can carry taxpayer data).
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context.ts";

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when well formed, else a new one; the fronts serving /docs use it too. */
export function requestIdFor(incoming: string | null | undefined): string {
  return incoming && CLIENT_ID.test(incoming) ? incoming : `req_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/** The Server-Timing value of an answer begun at `started` (performance.now()); the fronts serving /docs use it too. */
export function serverTimingSince(started: number): string {
  return `total;dur=${(performance.now() - started).toFixed(1)}`;
}

/**
 * Outermost, so the answer of a failure before the request context ran (deps that refused their
 * configuration) is timed as well: onError's answer comes back through here.
 */
export const serverTiming: MiddlewareHandler = async (c, next) => {
  const started = performance.now();
  await next();
  // On the answer itself: `c.header` would copy the finished answer (on Node, its body into a stream).
  c.res.headers.set("Server-Timing", serverTimingSince(started));
};

export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  const requestId = requestIdFor(c.req.header("x-request-id"));
  c.set("requestId", requestId);
  await next();
  const ms = performance.now() - started;
  // Set on the answer itself, as the later middleware do: `c.header` would copy the finished
  // answer into a new one, which on Node turns its body into a stream.
  c.res.headers.set("X-Request-Id", requestId);
  c.get("deps").log.log({
    level: c.res.status >= 500 ? "error" : "info",
    msg: "request",
    request_id: requestId,
    method: c.req.method,
    path: c.req.path,
    status: c.res.status,
    ms: Math.round(ms * 10) / 10,
    account: c.get("principal")?.account,
    units: c.get("quota")?.units ?? 0,
  });
};
