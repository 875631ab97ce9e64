// Cached SII web sessions: reuse, isolation between accounts and credentials, re-login when the
// SII drops a session, logout of sessions too old to keep, pacing, sealing at rest.
// Runs in Node and in workerd.
import { describe, expect, it } from "vitest";
import { memorySessionStore } from "../../src/adapters/memory/sessions.ts";
import { ApiError } from "../../src/platform/errors.ts";
import type { SessionStore } from "../../src/ports/stores.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { sandboxTransport } from "../../src/sandbox/transport.ts";
import { CookieJar } from "../../src/sii/cookies.ts";
import { claveLogin } from "../../src/sii/login.ts";
import {
  RECALL_ENTRIES,
  RECALL_MS,
  SESSION_MAX_MS,
  type SessionEnv,
  SessionExpired,
  type SessionOwner,
  sessionKey,
  withWebSession,
} from "../../src/sii/sessions.ts";

function setup() {
  let clock = Date.now();
  const sandbox = createDefaultSandbox({ now: () => clock });
  const store = memorySessionStore();
  const waits: number[] = [];
  /** The store's reads (`get`) and writes (`put`), counted for the tests that pin them. */
  const counts = { reads: 0, writes: 0 };
  const recording: SessionStore = {
    ...store,
    get: (...args) => {
      counts.reads++;
      return store.get(...args);
    },
    put: (...args) => {
      counts.writes++;
      return store.put(...args);
    },
    reserve: async (key, interval, now) => {
      const wait = await store.reserve(key, interval, now);
      waits.push(wait);
      return wait;
    },
  };
  const env: SessionEnv = {
    ctx: { transport: sandboxTransport(sandbox), timeoutMs: 2_000 },
    sessions: recording,
    secretKey: "test-secret-key-with-enough-characters-0123",
    now: () => new Date(clock),
    pacingMs: 5,
    waitMs: 2_000,
  };
  const advance = (ms: number) => {
    clock += ms;
  };
  return { sandbox, env, store, waits, advance, counts };
}

const owner = (overrides: Partial<SessionOwner> = {}): SessionOwner => ({
  account: "acme",
  rut: "76192083-9",
  ambiente: "0",
  kind: "clave",
  proof: "sandbox76",
  ...overrides,
});

function run(env: SessionEnv, who: SessionOwner, use: (token: string | undefined) => Promise<string> = async (t) => t ?? "") {
  return withWebSession(
    env,
    who,
    () => claveLogin(env.ctx, { rut: who.rut, clave: who.proof }),
    (jar) => use(jar.get("TOKEN")),
  );
}

describe("SII web sessions", () => {
  it("logs in once and reuses the session, sealed at rest", async () => {
    const { sandbox, env, store } = setup();
    const first = await run(env, owner());
    const second = await run(env, owner());
    expect(second).toBe(first);
    expect(sandbox.state.calls.get("clave_login")).toBe(1);
    // The stored value does not reveal the SII's session cookie.
    const stored = await store.get(await sessionKey(env, owner()), env.now());
    expect(stored).toMatch(/^v1\./);
    expect(stored).not.toContain(first);
  });

  it("stores the session again only when the SII changed its cookies", async () => {
    const { env, counts } = setup();
    await run(env, owner());
    expect(counts.writes).toBe(1); // the login
    await run(env, owner());
    expect(counts.writes).toBe(1); // same cookies: nothing to write
    const changed = await withWebSession(
      env,
      owner(),
      () => claveLogin(env.ctx, { rut: "76192083-9", clave: "sandbox76" }),
      async (jar) => {
        jar.store("https://www4.sii.cl/", new Headers({ "set-cookie": "EXTRA=renewed-by-the-sii; Path=/; Domain=.sii.cl" }));
        return "ok";
      },
    );
    expect([changed, counts.writes]).toEqual(["ok", 2]);
    const reused = await withWebSession(
      env,
      owner(),
      () => Promise.reject(new Error("no login expected")),
      async (jar) => jar.get("EXTRA"),
    );
    expect(reused).toBe("renewed-by-the-sii");
  });

  it("never shares a session between accounts, and a wrong clave never rides on a cached one", async () => {
    const { sandbox, env } = setup();
    const acme = await run(env, owner());
    const globex = await run(env, owner({ account: "globex" }));
    expect(globex).not.toBe(acme);
    await expect(run(env, owner({ proof: "wrong-clave" }))).rejects.toMatchObject({ code: "AUTH_ERROR" });
    expect(sandbox.state.calls.get("clave_login")).toBe(3);
  });

  it("re-establishes a session the SII dropped, once", async () => {
    const { sandbox, env } = setup();
    const first = await run(env, owner());
    sandbox.state.sessions.clear();
    const seen: (string | undefined)[] = [];
    const result = await run(env, owner(), async (token) => {
      seen.push(token);
      if (!token || !sandbox.state.sessions.has(token)) throw new SessionExpired();
      return "page";
    });
    expect(result).toBe("page");
    expect(seen[0]).toBe(first);
    expect(seen).toHaveLength(2);
    // A fresh session that meets the login wall again is the SII failing, not an expired session.
    await expect(
      run(env, owner(), async () => {
        throw new SessionExpired("Servicio no disponible");
      }),
    ).rejects.toMatchObject({ status: 502, code: "SII_GATEWAY_ERROR", init: { details: { sii_message: "Servicio no disponible" } } });
  });

  it("logs out a session older than two hours before opening a new one", async () => {
    const { sandbox, env, advance } = setup();
    const first = await run(env, owner());
    advance(SESSION_MAX_MS - 60_000);
    expect(await run(env, owner())).toBe(first);
    advance(120_000);
    const renewed = await run(env, owner());
    expect(renewed).not.toBe(first);
    expect(sandbox.state.calls.get("logout")).toBe(1);
    expect(sandbox.state.sessions.has(first)).toBe(false);
  });

  it("paces calls for one taxpayer and runs them one at a time", async () => {
    const { env, waits } = setup();
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 4 }, () =>
        run(env, owner(), async (token) => {
          running++;
          most = Math.max(most, running);
          await new Promise((r) => setTimeout(r, 5));
          running--;
          return token ?? "";
        }),
      ),
    );
    expect(most).toBe(1);
    expect(waits.length).toBeGreaterThanOrEqual(5);
  });

  it("does not store a session when the login fails", async () => {
    const { env, sandbox } = setup();
    sandbox.state.faults.push({ service: "clave_login", fault: "maintenance", remaining: 1 });
    const err = await run(env, owner()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    await run(env, owner());
    expect(sandbox.state.calls.get("clave_login")).toBe(2);
  });

  it("recalls an open session in this isolate for a short while, never for another account or credential", async () => {
    const { sandbox, env, advance, counts } = setup();
    const first = await run(env, owner());
    expect(await run(env, owner())).toBe(first);
    expect(counts.reads).toBe(1); // the second call neither read nor unsealed the stored session
    // Another account, or the same RUT with another clave, never gets the recalled session.
    expect(await run(env, owner({ account: "globex" }))).not.toBe(first);
    await expect(run(env, owner({ proof: "wrong-clave" }))).rejects.toMatchObject({ code: "AUTH_ERROR" });
    expect(sandbox.state.calls.get("clave_login")).toBe(3);
    // Past its bound the store is read again, and it still holds the same session.
    advance(RECALL_MS);
    expect(await run(env, owner())).toBe(first);
    expect(counts.reads).toBe(4);
    // A session the SII dropped is forgotten here too: the next call logs in afresh once.
    sandbox.state.sessions.clear();
    const renewed = await run(env, owner(), async (token) => {
      if (!token || !sandbox.state.sessions.has(token)) throw new SessionExpired();
      return token;
    });
    expect(renewed).not.toBe(first);
    expect(await run(env, owner())).toBe(renewed);
  });

  it("recalls at most a bounded number of sessions", async () => {
    const { env, counts } = setup();
    env.pacingMs = 0;
    const open = (account: string) =>
      withWebSession(
        env,
        owner({ account }),
        async () => new CookieJar(),
        async () => account,
      );
    for (let i = 0; i <= RECALL_ENTRIES; i++) await open(`account-${i}`);
    counts.reads = 0;
    await open(`account-${RECALL_ENTRIES}`); // the latest is recalled
    expect(counts.reads).toBe(0);
    await open("account-0"); // the first was dropped to keep the bound: read from the store
    expect(counts.reads).toBe(1);
  });
});
