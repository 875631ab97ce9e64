// GET and PUT /api/v1/settings/proxy: per account, validated, password write-only and sealed.
import { describe, expect, it } from "vitest";
import { bodyOf, probeApp, tokenFor } from "../support/app.ts";

const path = "/api/v1/settings/proxy";

async function setup(config = {}) {
  const t = probeApp(undefined, config);
  const acme = await tokenFor(t.deps, { account: "acme" });
  const globex = await tokenFor(t.deps, { account: "globex" });
  const call = (token: string, method: string, body?: unknown) =>
    t.app.request(path, {
      method,
      headers: { "x-api-token": token, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { ...t, acme: acme.secret, globex: globex.secret, call };
}

describe("proxy settings", () => {
  it("starts disabled, stores a proxy, never returns the password, and keeps it per account", async () => {
    const { call, acme, globex, deps } = await setup();
    expect((await bodyOf(await call(acme, "GET"))).data).toEqual({
      enabled: false,
      url: null,
      username: null,
      password_set: false,
      updated_at: null,
    });

    const put = await call(acme, "PUT", { enabled: true, url: "http://proxy.example.cl:3128/", username: "erp", password: "pw-canary" });
    expect(put.status).toBe(200);
    const saved = (await bodyOf(put)).data;
    expect(saved).toMatchObject({ enabled: true, url: "http://proxy.example.cl:3128", username: "erp", password_set: true });
    expect(JSON.stringify(saved)).not.toContain("pw-canary");

    const read = await call(acme, "GET");
    expect(read.headers.get("x-quota-units")).toBe("1");
    expect((await bodyOf(read)).data).toEqual(saved);
    expect((await bodyOf(await call(globex, "GET"))).data.enabled).toBe(false);

    const stored = JSON.stringify(await deps.settings.get("acme", "proxy"));
    expect(stored).not.toContain("pw-canary");
  });

  it("keeps the password when omitted and removes it with null", async () => {
    const { call, acme } = await setup();
    await call(acme, "PUT", { enabled: true, url: "https://proxy.example.cl:8443", username: "u", password: "p" });
    expect(
      (await bodyOf(await call(acme, "PUT", { enabled: false, url: "https://proxy.example.cl:8443", username: "u" }))).data.password_set,
    ).toBe(true);
    expect((await bodyOf(await call(acme, "PUT", { enabled: false, url: null, password: null }))).data.password_set).toBe(false);
  });

  it("answers 422 naming each bad field", async () => {
    const { call, acme } = await setup();
    const cases: [unknown, string[]][] = [
      [{ enabled: true }, ["url"]],
      [{ enabled: true, url: "ftp://proxy:21" }, ["url"]],
      [{ enabled: true, url: "http://user:pw@proxy:3128" }, ["url"]],
      [{ enabled: true, url: "http://proxy.example.cl" }, ["url"]],
      [{ enabled: true, url: "http://proxy:3128/path" }, ["url"]],
      [{ enabled: true, url: "http://proxy:3128", password: "x" }, ["username"]],
      [{ enabled: "yes", url: 5 }, ["enabled", "url"]],
      [{ enabled: true, url: "http://proxy:3128", extra: 1 }, [""]],
    ];
    for (const [body, paths] of cases) {
      const res = await call(acme, "PUT", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const got = (await bodyOf(res)).errors.map((e: { path: string }) => e.path).sort();
      expect(got, JSON.stringify(body)).toEqual(paths);
      expect(res.headers.get("x-quota-units")).toBe("0");
    }
  });

  it("refuses loopback and private proxy addresses unless the operator allows them", async () => {
    const { call, acme } = await setup({ allowPrivateProxy: false });
    for (const url of [
      "http://127.0.0.1:3128",
      "http://10.1.2.3:8080",
      "http://192.168.0.1:3128",
      "http://[::1]:3128",
      "http://localhost:3128",
      "http://169.254.169.254:80",
    ]) {
      const res = await call(acme, "PUT", { enabled: true, url });
      expect(res.status, url).toBe(422);
      expect((await bodyOf(res)).errors[0].message).toContain("not allowed");
    }
    expect((await call(acme, "PUT", { enabled: true, url: "http://203.0.113.7:3128" })).status).toBe(200);
  });

  it("needs settings:read to read and settings:write to write", async () => {
    const t = probeApp();
    const reader = await tokenFor(t.deps, { scopes: ["settings:read"] });
    const writer = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
    const put = (token: string) =>
      t.app.request(path, {
        method: "PUT",
        headers: { "x-api-token": token, "content-type": "application/json" },
        body: '{"enabled":false}',
      });
    expect((await t.app.request(path, { headers: { "x-api-token": reader.secret } })).status).toBe(200);
    expect((await put(reader.secret)).status).toBe(403);
    expect((await t.app.request(path, { headers: { "x-api-token": writer.secret } })).status).toBe(403);
    expect((await t.app.request(path)).status).toBe(401);
  });
});

describe("proxy test in sandbox mode", () => {
  it("says the simulated SII is reached in-process and charges one unit", async () => {
    const { call, acme, app } = await setup();
    await call(acme, "PUT", { enabled: true, url: "http://proxy.example.cl:3128" });
    const res = await app.request("/api/v1/settings/proxy/test?ambiente=1", { method: "POST", headers: { "x-api-token": acme } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("1");
    expect((await bodyOf(res)).data).toMatchObject({
      reachable: true,
      target: "https://maullin.sii.cl",
      sii_status: 200,
      upstream: "sandbox",
    });
    const bad = await app.request("/api/v1/settings/proxy/test?ambiente=7", { method: "POST", headers: { "x-api-token": acme } });
    expect(bad.status).toBe(400);
  });
});
