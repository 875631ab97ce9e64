// The Worker entry's security headers, and CORS read from its environment (off unless CORS_ORIGINS lists the origin).
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker, { type WorkerEnv } from "../../src/entry/worker.ts";

const site = "https://app.example.cl";
const preflight = { method: "OPTIONS", headers: { origin: site, "access-control-request-method": "GET" } };

describe("worker security headers and CORS", () => {
  it("sends nosniff and no-store without banners, and CORS only when CORS_ORIGINS lists the origin", async () => {
    const plain = await exports.default.fetch(new Request("https://gateway.test/api/v1/usage", { headers: { origin: site } }));
    expect(plain.status).toBe(401);
    expect(plain.headers.get("x-content-type-options")).toBe("nosniff");
    expect(plain.headers.get("cache-control")).toBe("no-store");
    expect(plain.headers.get("server")).toBeNull();
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    const refused = await exports.default.fetch(new Request("https://gateway.test/api/v1/usage", preflight));
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();

    const listed = { ...(env as unknown as WorkerEnv), CORS_ORIGINS: site } as WorkerEnv;
    const ctx = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext;
    const answered = await worker.fetch(new Request("https://gateway.test/api/v1/usage", preflight), listed, ctx);
    expect(answered.status).toBe(204);
    expect(answered.headers.get("access-control-allow-origin")).toBe(site);
    expect(answered.headers.get("cache-control")).toBe("no-store");
  });

  it("runs the sandbox without a SECRET_KEY of its own only on loopback (wrangler dev), and refuses a short ADMIN_TOKEN", async () => {
    const ctx = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext;
    const noKey = { ...(env as unknown as WorkerEnv), SECRET_KEY: undefined } as WorkerEnv;
    const deployed = await worker.fetch(new Request("https://gateway.test/api/v1/usage"), noKey, ctx);
    expect(deployed.status).toBe(500);
    expect(await deployed.json()).toMatchObject({ success: false, error_code: "INTERNAL_ERROR" });
    expect(deployed.headers.get("cache-control")).toBe("no-store");
    for (const local of ["http://127.0.0.1:8787/api/v1/usage", "http://localhost:8787/api/v1/usage"]) {
      expect((await worker.fetch(new Request(local), noKey, ctx)).status).toBe(401);
    }
    const shortAdmin = { ...(env as unknown as WorkerEnv), ADMIN_TOKEN: "short-admin" } as WorkerEnv;
    expect((await worker.fetch(new Request("https://gateway.test/api/v1/usage"), shortAdmin, ctx)).status).toBe(500);
  });
});
