// CORS from an allow-list (CORS_ORIGINS). Off by default: without the setting, or for an origin
// not on the list, no CORS header is sent and a preflight gets the app's ordinary answer, so
// browsers on other sites cannot read any answer.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context.ts";

const METHODS = "GET, POST, PUT, PATCH, DELETE";
const ALLOWED_HEADERS = "Content-Type, X-Api-Token, Authorization, Idempotency-Key, X-Request-Id";
/** What a browser script may read from an answer besides the safelisted headers. */
const EXPOSED_HEADERS =
  "X-Request-Id, Retry-After, Idempotent-Replayed, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Quota-Units";

export const cors: MiddlewareHandler<AppEnv> = async (c, next) => {
  const allowList = c.get("deps").config.corsOrigins ?? [];
  if (allowList.length === 0) return next();
  const origin = c.req.header("origin");
  const allowed = origin !== undefined && allowList.includes(origin);
  if (allowed && c.req.method === "OPTIONS" && c.req.header("access-control-request-method")) {
    return c.body(null, 204, {
      "Access-Control-Allow-Origin": origin,
      "Access-Control-Allow-Methods": METHODS,
      "Access-Control-Allow-Headers": ALLOWED_HEADERS,
      "Access-Control-Max-Age": "600",
      Vary: "Origin",
    });
  }
  await next();
  // The answer depends on Origin whenever a list is set, so caches must key on it.
  c.res.headers.append("Vary", "Origin");
  if (allowed) {
    c.res.headers.set("Access-Control-Allow-Origin", origin);
    c.res.headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
  }
};

/** Parses CORS_ORIGINS: comma-separated exact origins (`https://app.example.cl`), no wildcards. */
export function parseCorsOrigins(value: string | undefined): string[] {
  if (value === undefined || value.trim() === "") return [];
  return value.split(",").map((raw) => {
    const entry = raw.trim().replace(/\/$/, "");
    let origin: string | undefined;
    try {
      origin = new URL(entry).origin;
    } catch {
      origin = undefined;
    }
    if (origin === undefined || origin === "null" || origin !== entry || entry.includes("*") || !/^https?:$/.test(new URL(entry).protocol))
      throw new Error(`CORS_ORIGINS: "${raw.trim()}" is not an origin like https://app.example.cl (scheme, host and optional port only)`);
    return origin;
  });
}
