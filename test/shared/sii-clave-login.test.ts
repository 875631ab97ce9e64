// The RUT + clave web login against the sandbox SII: success, every failure page, logout.
// Runs in Node and in workerd.
import { describe, expect, it } from "vitest";
import { MAX_SESSIONS_PER_RUT } from "../../src/sandbox/auth.ts";
import { claveLogin, logout, webSessionToken } from "../../src/sii/login.ts";
import { failure, sandboxSetup } from "../support/sii.ts";

const setup = (timeoutMs = 2_000) => sandboxSetup({ timeoutMs });

const good = { rut: "76192083-9", clave: "sandbox76" };

describe("clave login", () => {
  it("opens a session whose .sii.cl cookies reach the other SII hosts, and logs out", async () => {
    const { sandbox, ctx } = setup();
    const jar = await claveLogin(ctx, good);
    expect(jar.get("TOKEN")).toMatch(/^[A-Z0-9]{20}$/);
    expect(jar.header("https://www4.sii.cl/consdcvinternetui/")).toContain(`TOKEN=${jar.get("TOKEN")}`);
    expect(jar.get("RUT_NS")).toBe("76192083");
    expect(sandbox.state.sessions.size).toBe(1);
    await logout(ctx, jar);
    expect(sandbox.state.sessions.size).toBe(0);
    expect(Object.fromEntries(sandbox.state.calls)).toEqual({ login_page: 1, clave_login: 1, logout: 1 });
  });

  it("takes CSESSIONID as the session's token when the SII sets no TOKEN", async () => {
    const { sandbox, ctx } = setup();
    sandbox.state.csessionidOnly = true;
    const jar = await claveLogin(ctx, good);
    expect(jar.get("TOKEN")).toBeUndefined();
    expect(webSessionToken(jar)).toMatch(/^[A-Z0-9]{20}$/);
    expect(sandbox.state.sessions.get(webSessionToken(jar) ?? "")).toMatchObject({ rut: "76192083-9", kind: "clave" });
    // The login did not need the token page: its answer already carried the session's token.
    expect(sandbox.state.calls.get("session_token")).toBeUndefined();
  });

  it("maps a wrong clave to 400 AUTH_ERROR with the SII's text, never echoing the clave", async () => {
    const { ctx } = setup();
    const err = await failure(claveLogin(ctx, { rut: good.rut, clave: "wrong-clave-canary" }));
    expect([err.status, err.code]).toEqual([400, "AUTH_ERROR"]);
    expect(String(err.init.details?.sii_message)).toContain("Clave Tributaria ingresada no es correcta");
    expect(JSON.stringify({ message: err.message, ...err.init })).not.toContain("wrong-clave-canary");
  });

  it("maps maintenance to 503 SII_UNAVAILABLE with Retry-After", async () => {
    const { ctx, fault } = setup();
    fault("clave_login", "maintenance");
    const err = await failure(claveLogin(ctx, good));
    expect([err.status, err.code, err.init.headers?.["Retry-After"]]).toEqual([503, "SII_UNAVAILABLE", "300"]);
    expect(String(err.init.details?.sii_message)).toContain("no se puede responder");
  });

  it("maps the session-limit page to 429 SII_RATE_LIMIT, injected or reached for real", async () => {
    const { ctx, fault } = setup();
    fault("clave_login", "session_limit");
    const injected = await failure(claveLogin(ctx, good));
    expect([injected.status, injected.code, injected.init.headers?.["Retry-After"]]).toEqual([429, "SII_RATE_LIMIT", "1800"]);
    for (let i = 0; i < MAX_SESSIONS_PER_RUT; i++) await claveLogin(ctx, good);
    const reached = await failure(claveLogin(ctx, good));
    expect(reached.code).toBe("SII_RATE_LIMIT");
  });

  it("maps throttling to 429 with the SII's Retry-After", async () => {
    const { ctx, fault } = setup();
    fault("zeusr.sii.cl", "throttle");
    const throttled = await failure(claveLogin(ctx, good));
    expect([throttled.status, throttled.code, throttled.init.headers?.["Retry-After"]]).toEqual([429, "SII_RATE_LIMIT", "60"]);
  });

  it("retries a failed read once, but never the login post", async () => {
    const { sandbox, ctx, fault } = setup();
    fault("login_page", "http_5xx", 1);
    await claveLogin(ctx, good);
    expect(sandbox.state.calls.get("login_page")).toBe(2);

    sandbox.state.calls.clear();
    fault("clave_login", "http_5xx", 1);
    const failed = await failure(claveLogin(ctx, good));
    expect([failed.status, failed.code, failed.init.details?.sii_status]).toEqual([502, "SII_GATEWAY_ERROR", 500]);
    expect(sandbox.state.calls.get("clave_login")).toBe(1);
  });

  it("gives up on a silent SII after the timeout with 502", async () => {
    const { ctx, fault } = setup(150);
    fault("login_page", "timeout", 2);
    const started = Date.now();
    const err = await failure(claveLogin(ctx, good));
    expect([err.status, err.code, err.init.details?.reason]).toEqual([502, "SII_GATEWAY_ERROR", "timeout"]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
