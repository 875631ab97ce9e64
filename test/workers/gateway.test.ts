// The Worker entry in workerd with real KV and Durable Objects.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { durableIdempotencyStore } from "../../src/adapters/cloudflare/durable-idempotency.ts";
import { durableQuotaStore } from "../../src/adapters/cloudflare/durable-quota.ts";
import { kvSettingsStore } from "../../src/adapters/cloudflare/kv-settings.ts";
import { kvTokenStore } from "../../src/adapters/cloudflare/kv-tokens.ts";
import type { WorkerEnv } from "../../src/entry/worker.ts";
import { probeApp, tokenFor, writeBody, writePath } from "../support/app.ts";
import { ADMIN_HEADERS, fetchWorker } from "./worker.ts";

const bindings = env as unknown as WorkerEnv;

describe("worker entry", () => {
  it("issues a token through the admin API and serves the envelope, auth and quota headers", async () => {
    const created = await fetchWorker("/admin/v1/tokens", {
      method: "POST",
      headers: ADMIN_HEADERS,
      body: JSON.stringify({ name: "w", account: "acme", scopes: ["sii:read"], plan: { daily_units: 3, monthly_units: 9 } }),
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { token: string; id: string } };

    const usage = await fetchWorker("/api/v1/usage", { headers: { "x-api-token": data.token } });
    expect(usage.status).toBe(200);
    expect(usage.headers.get("x-ratelimit-limit")).toBe("3");
    expect(usage.headers.get("x-quota-units")).toBe("0");
    expect(usage.headers.get("x-request-id")).toMatch(/^req_/);
    const body = (await usage.json()) as { success: boolean; data: { token_id: string } };
    expect(body).toMatchObject({ success: true, data: { token_id: data.id } });

    const missing = await fetchWorker("/api/v1/usage");
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error_code: string }).error_code).toBe("HTTP_401");

    const unknown = await fetchWorker("/api/v1/unknown", { headers: { "x-api-token": data.token } });
    expect(unknown.status).toBe(404);
    const wrongMethod = await fetchWorker("/api/v1/usage", { method: "POST", headers: { "x-api-token": data.token } });
    expect(wrongMethod.status).toBe(405);
  });

  it("serves the OpenAPI document without auth", async () => {
    const res = await fetchWorker("/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/api/v1/usage");
  });

  it("lets exactly the allowed number of 50 concurrent weighted calls through (Durable Object quota)", async () => {
    const { app, deps, probes } = probeApp({
      tokens: kvTokenStore(bindings.TOKENS),
      settings: kvSettingsStore(bindings.SETTINGS),
      quota: durableQuotaStore(bindings.QUOTA),
      idempotency: durableIdempotencyStore(bindings.IDEMPOTENCY),
    });
    const token = await tokenFor(deps, { plan: { daily_units: 20, monthly_units: 1000 } });
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        app.request(writePath, {
          method: "POST",
          headers: { "x-api-token": token.secret, "content-type": "application/json" },
          body: writeBody,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(4);
    expect(results.filter((r) => r.status === 429)).toHaveLength(46);
    expect(probes.calls.write).toBe(4);
  });
});
