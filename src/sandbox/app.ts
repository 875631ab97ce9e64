// The built-in SII simulator. It answers as the SII hosts do; each SII service is added by the
// issue that needs it. Requests for anything it does not simulate get the SII's plain 404.
import { Hono } from "hono";

export function createSandbox(): Hono {
  const sandbox = new Hono();
  sandbox.notFound((c) => c.html("<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>", 404));
  return sandbox;
}
