// GET /healthz: the gateway's own state for anyone, and with deep=1 (the operator only) each SII
// host's reachability through the configured transport, reported per host and bounded in time.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { Health } from "../../src/routes/health/healthz.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { HEALTH_PROBES } from "../../src/services/health.ts";
import { SII_HOSTS } from "../../src/sii/hosts.ts";
import { liveTransport } from "../../src/sii/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { ADMIN, testDeps, tokenFor } from "../support/app.ts";

const version = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")).version;
const admin = { authorization: `Bearer ${ADMIN}` };

function sandboxApp(config: Parameters<typeof testDeps>[1] = {}) {
  const { deps } = testDeps(undefined, config);
  return { app: createApp(() => deps), deps };
}

describe("GET /healthz", () => {
  it("answers without a token, with a request id, the mode and the package version, and costs no quota", async () => {
    const { app, deps } = sandboxApp();
    const res = await app.request("/healthz", { headers: { "x-request-id": "lb-check-1" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("lb-check-1");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    expect(await answerOf(res, Health)).toMatchObject({ success: true, data: { status: "ok", mode: "sandbox", version } });

    // A token with its whole day spent still gets the health answer, and nothing is counted.
    const plan = { daily_units: 1, monthly_units: 1 };
    const token = await tokenFor(deps, { plan });
    expect((await deps.quota.consume(token.id, 1, plan, new Date())).allowed).toBe(true);
    const before = await deps.quota.peek(token.id, plan, new Date());
    const withToken = await app.request("/healthz", { headers: { "x-api-token": token.secret } });
    expect(withToken.status).toBe(200);
    const after = await deps.quota.peek(token.id, plan, new Date());
    expect(after).toEqual(before);
  });

  it("says live mode when the gateway talks to the real SII, and does not reach it without deep=1", async () => {
    const calls: string[] = [];
    const { deps } = testDeps(undefined, { upstream: "live" });
    deps.sii = liveTransport(async (input) => {
      calls.push(new Request(input).url);
      return new Response("", { status: 200 });
    });
    const res = await createApp(() => deps).request("/healthz");
    expect((await answerOf(res, Health)).data).toEqual({ status: "ok", mode: "live", version });
    expect(calls).toEqual([]);
  });

  it("refuses the deep check without the admin token, with a wrong one, and when no ADMIN_TOKEN is set", async () => {
    const { app, deps } = sandboxApp();
    const token = await tokenFor(deps);
    const refused: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${ADMIN}x` },
      { authorization: `Bearer ${token.secret}` },
      { "x-api-token": ADMIN },
    ];
    for (const headers of refused) {
      const res = await app.request("/healthz?deep=1", { headers });
      expect(res.status).toBe(401);
      expect((await errorOf(res)).error_code).toBe("HTTP_401");
    }
    expect(simulatorOf(deps.sii).state.calls.size).toBe(0);

    const { app: noAdmin } = sandboxApp({ adminToken: undefined });
    expect((await noAdmin.request("/healthz?deep=1", { headers: admin })).status).toBe(401);
    expect((await app.request("/healthz?deep=yes", { headers: admin })).status).toBe(400);
  });

  it("probes the one list of SII hosts (src/sii/hosts.ts), which names every host src/sii/ calls", () => {
    expect(HEALTH_PROBES.map((p) => p.host)).toEqual(SII_HOSTS);
    const dir = join(import.meta.dirname, "..", "..", "src", "sii");
    const named = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))) {
      for (const m of readFileSync(join(dir, file), "utf8").matchAll(/(?:https?:\/\/|")([a-z0-9]+\.sii\.cl)\b/g)) named.add(m[1] ?? "");
    }
    expect([...named].filter((host) => !SII_HOSTS.includes(host))).toEqual([]);
    expect(named.size).toBeGreaterThan(10);
  });

  it("with the admin token reaches every SII host through the sandbox and reports each", async () => {
    const { app, deps } = sandboxApp();
    const res = await app.request("/healthz?deep=1", { headers: admin });
    expect(res.status).toBe(200);
    const { data } = await answerOf(res, Health);
    expect(data).toMatchObject({ status: "ok", mode: "sandbox", version });
    const hosts = data.sii ?? [];
    expect(hosts.map((h) => h.host)).toEqual(HEALTH_PROBES.map((p) => p.host));
    for (const h of hosts) expect(h, h.host).toMatchObject({ reachable: true, error: null, status: expect.any(Number) });
    // The SOAP hosts were asked for their seed service's description: the simulated SII counted it.
    expect(simulatorOf(deps.sii).state.calls.get("seed_wsdl")).toBe(2);
    expect(hosts.find((h) => h.host === "palena.sii.cl")?.status).toBe(200);
  });

  it("reports a host the sandbox drops the connection of as unreachable, the others as reached, without failing", async () => {
    const { app } = sandboxApp();
    const fault = await app.request("/sandbox/v1/faults", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ service: "palena.sii.cl", fault: "reset", count: 1 }),
    });
    expect(fault.status).toBe(200);
    const res = await app.request("/healthz?deep=1", { headers: admin });
    expect(res.status).toBe(200);
    const { data } = await answerOf(res, Health);
    expect(data.status).toBe("degraded");
    const hosts = data.sii ?? [];
    const palena = hosts.find((h) => h.host === "palena.sii.cl");
    expect(palena).toMatchObject({ reachable: false, status: null });
    expect(palena?.error).toMatch(/ECONNRESET/);
    expect(hosts.filter((h) => !h.reachable).map((h) => h.host)).toEqual(["palena.sii.cl"]);
    // The fault was used up: the next check is clean again.
    expect((await answerOf(await app.request("/healthz?deep=1", { headers: admin }), Health)).data.status).toBe("ok");
  });

  it("gives up on a host that does not answer within the time limit, and answers in about that time", async () => {
    const { app } = sandboxApp({ siiTimeoutMs: 300 });
    await app.request("/sandbox/v1/faults", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ service: "zeusr.sii.cl", fault: "timeout", count: 1 }),
    });
    const started = performance.now();
    const res = await app.request("/healthz?deep=1", { headers: admin });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    const zeusr = ((await answerOf(res, Health)).data.sii ?? []).find((h) => h.host === "zeusr.sii.cl");
    expect(zeusr).toMatchObject({ reachable: false, status: null, error: "no answer within 300 ms" });
    expect(elapsed).toBeLessThan(3_000);
  });

  it("in live mode sends one GET per host through the transport and reports a failing network per host", async () => {
    const seen: string[] = [];
    const { deps } = testDeps(undefined, { upstream: "live" });
    deps.sii = liveTransport(async (input) => {
      const request = new Request(input);
      seen.push(`${request.method} ${request.url}`);
      if (request.url.startsWith("https://ws1.sii.cl/"))
        throw new TypeError("fetch failed", { cause: new Error("getaddrinfo ENOTFOUND ws1.sii.cl") });
      return new Response("<html></html>", { status: request.url.endsWith("/") ? 404 : 200 });
    });
    const res = await createApp(() => deps).request("/healthz?deep=1", { headers: admin });
    expect(res.status).toBe(200);
    const { data } = await answerOf(res, Health);
    expect(data.status).toBe("degraded");
    expect(seen.sort()).toEqual(HEALTH_PROBES.map((p) => `GET https://${p.host}${p.path}`).sort());
    const ws1 = (data.sii ?? []).find((h) => h.host === "ws1.sii.cl");
    expect(ws1).toMatchObject({ reachable: false, error: "fetch failed: getaddrinfo ENOTFOUND ws1.sii.cl" });
  });
});
