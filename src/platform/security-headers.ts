// Headers every answer carries: no MIME sniffing, nothing cached from the API (answers hold
// taxpayer data and quota state), and no banner naming the software behind the gateway.
import type { MiddlewareHandler } from "hono";

/** Headers that only advertise the server's software; dropped wherever they came from. */
const BANNERS = ["Server", "X-Powered-By", "X-AspNet-Version", "Via"];

export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  const headers = c.res.headers;
  headers.set("X-Content-Type-Options", "nosniff");
  if (new URL(c.req.url).pathname.startsWith("/api/")) headers.set("Cache-Control", "no-store");
  for (const name of BANNERS) headers.delete(name);
};
