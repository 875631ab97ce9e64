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
});
