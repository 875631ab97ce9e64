// /docs and its files run through the Worker first (wrangler.toml run_worker_first) and carry an
// X-Request-Id and Server-Timing like every other answer, with the page's own security headers.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker, { type WorkerEnv } from "../../src/entry/worker.ts";
import { DOCS_CSP } from "../../src/platform/security-headers.ts";

// The Worker's own fetch with the real assets binding of wrangler.toml (the routing rule itself,
// run_worker_first, is checked by the node project's test of that file).
const ctx = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext;
const get = (path: string, headers: Record<string, string> = {}) =>
  worker.fetch(new Request(`https://gateway.test${path}`, { headers }), env as unknown as WorkerEnv, ctx);

describe("/docs on Workers", () => {
  it("serves the page and its scripts with X-Request-Id, Server-Timing, the CSP and no framing", async () => {
    for (const path of ["/docs/", "/docs/init.js"]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("x-request-id"), path).toMatch(/^req_[0-9a-f]{24}$/);
      expect(res.headers.get("server-timing"), path).toMatch(/^total;dur=\d+\.\d$/);
      expect(res.headers.get("content-security-policy"), path).toBe(DOCS_CSP);
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      await res.arrayBuffer();
    }
    const kept = await get("/docs/", { "x-request-id": "trace-42" });
    expect(kept.headers.get("x-request-id")).toBe("trace-42");
    await kept.arrayBuffer();
  });

  it("answers a missing file under /docs from the app: 404 envelope with X-Request-Id", async () => {
    const res = await get("/docs/no-such-file.js");
    expect(res.status).toBe(404);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(((await res.json()) as { error_code: string }).error_code).toBe("HTTP_404");
  });

  it("gives the refusal of a Worker without SECRET_KEY a request id and Server-Timing too", async () => {
    const noKey = { ...(env as unknown as WorkerEnv), SECRET_KEY: undefined } as WorkerEnv;
    const res = await worker.fetch(
      new Request("https://gateway.test/api/v1/usage", { headers: { "x-request-id": "trace-7" } }),
      noKey,
      ctx,
    );
    expect(res.status).toBe(500);
    expect(res.headers.get("x-request-id")).toBe("trace-7");
    expect(res.headers.get("server-timing")).toMatch(/^total;dur=\d+\.\d$/);
    expect(((await res.json()) as { request_id: string }).request_id).toBe("trace-7");
  });
});
