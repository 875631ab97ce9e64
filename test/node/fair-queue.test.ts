// Fair sharing of a taxpayer's SII calls between accounts: an account whose proxy accepts and never
// answers, firing calls for a RUT with a wrong clave, must not hold another account's calls for that
// RUT (they used to queue behind its timeouts, one SII timeout per queued call); its own queued
// calls are refused with 429 and Retry-After once past the wait bound, never left to stall.
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeTransport } from "../../src/adapters/node/transport.ts";
import { configFromEnv } from "../../src/config.ts";
import type { SiiTransport } from "../../src/ports/transport.ts";
import { errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const COMPANY = "76192083-9";
const BTE = "/api/v1/sii/bte/emitidas/resumen/2025";
const right = { auth: { pass: { rut: COMPANY, clave: "sandbox76" } } };
const wrong = { auth: { pass: { rut: COMPANY, clave: "not-the-clave" } } };
/** Short, so the attacker's calls time out quickly: on the old per-RUT queue each attempt held the victim this long. */
const TIMEOUT_MS = 400;
const WAIT_MS = 200;

/** A "proxy" that accepts connections and never answers (127.0.0.1 only). */
let blackHole: { server: Server; sockets: Socket[]; port: number };

beforeAll(async () => {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  blackHole = { server, sockets, port: address.port };
});

afterAll(() => {
  for (const socket of blackHole.sockets) socket.destroy();
  blackHole.server.close();
});

async function twoAccounts() {
  const t = probeApp(undefined, { siiTimeoutMs: TIMEOUT_MS, siiMaxWaitMs: WAIT_MS });
  // The sandbox answers in-process; a call with a proxy goes through the Node transport's proxy
  // path for real (the sandbox transport has none), here into the black hole.
  const sandbox = t.deps.sii;
  const viaProxy = nodeTransport({ allowPrivateProxy: true });
  const sii: SiiTransport = {
    ...sandbox,
    fetch: (request, options) => (options?.proxy ? viaProxy.fetch(request, options) : sandbox.fetch(request, options)),
  };
  t.deps.sii = sii;
  const alpha = await tokenFor(t.deps, { account: "alpha" });
  const beta = await tokenFor(t.deps, { account: "beta" });
  const proxy = await t.app.request("/api/v1/settings/proxy", {
    method: "PUT",
    headers: { "x-api-token": alpha.secret, "content-type": "application/json" },
    body: JSON.stringify({ enabled: true, url: `http://127.0.0.1:${blackHole.port}` }),
  });
  expect(proxy.status).toBe(200);
  return {
    alpha: (body: unknown) => postJson(t.app, alpha.secret, BTE, body),
    beta: (body: unknown) => postJson(t.app, beta.secret, BTE, body),
  };
}

describe("fair sharing of a taxpayer between accounts", () => {
  it("a hung proxy and a wrong clave in one account never hold another account's call for the same RUT", async () => {
    const { alpha, beta } = await twoAccounts();
    const attack = [alpha(wrong), alpha(wrong), alpha(wrong)];
    await new Promise((resolve) => setTimeout(resolve, 50)); // the attacker's calls are under way and queued

    const started = performance.now();
    const res = await beta(right);
    const stall = performance.now() - started;
    expect(res.status).toBe(200);
    expect(stall).toBeLessThan(1_000);

    // The attacker's first call meets its own proxy's silence; the ones queued behind it in its own
    // lane are refused once past the bound, with when to retry, instead of waiting a timeout each.
    const answers = await Promise.all(attack);
    const outcomes = await Promise.all(
      answers.map(async (answer) => [answer.status, (await errorOf(answer)).error_code, answer.headers.get("retry-after")]),
    );
    expect(outcomes).toEqual([
      [502, "SII_GATEWAY_ERROR", null],
      [429, "SII_RATE_LIMIT", "1"],
      [429, "SII_RATE_LIMIT", "1"],
    ]);
  });

  it("reads the wait bound from SII_MAX_WAIT_MS, refusing what is not a whole number of at least 100 ms", () => {
    expect(configFromEnv({}).siiMaxWaitMs).toBeUndefined();
    expect(configFromEnv({ SII_MAX_WAIT_MS: "2500" }).siiMaxWaitMs).toBe(2500);
    for (const bad of ["99", "1.5", "soon", "-1"])
      expect(() => configFromEnv({ SII_MAX_WAIT_MS: bad }), bad).toThrow(/SII_MAX_WAIT_MS must be a whole number/);
  });
});
