// Headers every answer carries: no MIME sniffing, nothing cached from the API or the admin API
// (answers hold taxpayer data, quota state, and a new token's secret), no banner naming the
// software behind the gateway, and on /docs a policy that lets the page run only its own scripts
// and never inside another site's frame.
import type { MiddlewareHandler } from "hono";

/** Headers that only advertise the server's software; dropped wherever they came from. */
const BANNERS = ["Server", "X-Powered-By", "X-AspNet-Version", "Via"];

/**
 * The /docs page's policy. Swagger UI runs from its own files: scripts from the page's origin
 * only (the page's start-up code is a file too), styles may be inline (Swagger UI sets them), and
 * images may be data: URLs (its icons), as its maintainers fit it to "default-src 'self' data:"
 * (swagger-api/swagger-ui issue 7540). Workers serves the same value from public/_headers.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  const headers = c.res.headers;
  headers.set("X-Content-Type-Options", "nosniff");
  // Hono's own path (no URL parse per request); same value as `new URL(c.req.url).pathname`.
  const path = c.req.path;
  if (path.startsWith("/api/") || path.startsWith("/admin/")) headers.set("Cache-Control", "no-store");
  else if (path === "/docs" || path.startsWith("/docs/")) {
    headers.set("Content-Security-Policy", DOCS_CSP);
    headers.set("X-Frame-Options", "DENY");
  }
  for (const name of BANNERS) headers.delete(name);
};
