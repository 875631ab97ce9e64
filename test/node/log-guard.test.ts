// Every test through the harness watches the logs for the sandbox taxpayers' secrets (claves,
// private keys, PFX files): the whole suite doubles as a secret-hygiene check.
import { describe, expect, it } from "vitest";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { testDeps } from "../support/app.ts";

describe("the harness's log guard", () => {
  it("fails a test the moment a taxpayer secret is logged", () => {
    const { deps, logs } = testDeps();
    deps.log.log({ level: "info", msg: "request", path: "/api/v1/usage" });
    expect(logs).toHaveLength(1);
    expect(() => deps.log.log({ level: "error", msg: "login failed with clave sandbox76" })).toThrow(/taxpayer secret reached the log/);
    const key = SANDBOX_TAXPAYER_CERTS["22222222-2"].keyPem;
    expect(() => deps.log.log({ level: "error", msg: "bad key", detail: key })).toThrow(/taxpayer secret/);
    expect(logs).toHaveLength(1);
  });
});
