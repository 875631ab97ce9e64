// Every test through the harness watches for the sandbox taxpayers' secrets (claves, private keys,
// PFX files) in log lines, in values handed to any store and in error answers: the whole suite
// doubles as a secret-hygiene check.
import { describe, expect, it } from "vitest";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { probeApp, testDeps } from "../support/app.ts";

describe("the harness's secret guard", () => {
  it("fails a test the moment a taxpayer secret is logged", () => {
    const { deps, logs } = testDeps();
    deps.log.log({ level: "info", msg: "request", path: "/api/v1/usage" });
    expect(logs).toHaveLength(1);
    expect(() => deps.log.log({ level: "error", msg: "login failed with clave sandbox76" })).toThrow(/taxpayer secret reached the log/);
    const key = SANDBOX_TAXPAYER_CERTS["22222222-2"].keyPem;
    expect(() => deps.log.log({ level: "error", msg: "bad key", detail: key })).toThrow(/taxpayer secret/);
    expect(logs).toHaveLength(1);
  });

  it("fails a store call that would keep a taxpayer secret at rest", async () => {
    const { deps } = testDeps();
    await deps.cache.put("76192083-9|ok", "cookie=abc", new Date());
    expect(() => deps.cache.put("76192083-9|jar", "clave=sandbox76", new Date())).toThrow(/handed to the cache store/);
    const pfx = SANDBOX_TAXPAYER_CERTS["22222222-2"].legacyPfxBase64;
    expect(() => deps.settings.put("acme", "proxy", { pfx })).toThrow(/handed to the settings store/);
  });

  it("fails on an error answer that carries a taxpayer secret", async () => {
    const { app } = probeApp();
    app.get("/leaky", (c) => c.json({ success: false, message: "wrong clave sandbox76" }, 400));
    app.get("/fine", (c) => c.json({ success: false, message: "wrong clave" }, 400));
    expect((await app.request("/fine")).status).toBe(400);
    await expect(app.request("/leaky")).rejects.toThrow(/taxpayer secret reached an error answer/);
  });
});
