// GET and PUT /api/v1/settings/proxy: per account, validated, password write-only and sealed;
// the proxy never reaches inside the gateway's network, however its address is written.
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeTransport, type ResolveAll } from "../../src/adapters/node/transport.ts";
import { createApp } from "../../src/app.ts";
import { ApiError } from "../../src/lib/api-error.ts";
import { ProxySettingsEnvelope } from "../../src/routes/settings/schema.ts";
import { failureOf, ProxyTest, UNREACHED } from "../../src/routes/settings/test-proxy.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { probeApp, testDeps, tokenFor } from "../support/app.ts";

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
    expect((await answerOf(await call(acme, "GET"), ProxySettingsEnvelope)).data).toEqual({
      enabled: false,
      url: null,
      username: null,
      password_set: false,
      updated_at: null,
    });

    const put = await call(acme, "PUT", { enabled: true, url: "http://proxy.example.cl:3128/", username: "erp", password: "pw-canary" });
    expect(put.status).toBe(200);
    const saved = (await answerOf(put, ProxySettingsEnvelope)).data;
    expect(saved).toMatchObject({ enabled: true, url: "http://proxy.example.cl:3128", username: "erp", password_set: true });
    expect(JSON.stringify(saved)).not.toContain("pw-canary");

    const read = await call(acme, "GET");
    expect(read.headers.get("x-quota-units")).toBe("1");
    expect((await answerOf(read, ProxySettingsEnvelope)).data).toEqual(saved);
    expect((await answerOf(await call(globex, "GET"), ProxySettingsEnvelope)).data.enabled).toBe(false);

    const stored = JSON.stringify(await deps.settings.get("acme", "proxy"));
    expect(stored).not.toContain("pw-canary");
  });

  it("keeps the password when omitted and removes it with null", async () => {
    const { call, acme } = await setup();
    await call(acme, "PUT", { enabled: true, url: "https://proxy.example.cl:8443", username: "u", password: "p" });
    expect(
      (
        await answerOf(
          await call(acme, "PUT", { enabled: false, url: "https://proxy.example.cl:8443", username: "u" }),
          ProxySettingsEnvelope,
        )
      ).data.password_set,
    ).toBe(true);
    expect(
      (await answerOf(await call(acme, "PUT", { enabled: false, url: null, password: null }), ProxySettingsEnvelope)).data.password_set,
    ).toBe(false);
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
      [{ enabled: true, url: "http://proxy:3128", extra: 1 }, ["extra"]],
    ];
    for (const [body, paths] of cases) {
      const res = await call(acme, "PUT", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const got = (await errorOf(res)).errors?.map((e: { path: string }) => e.path).sort();
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
      expect(res.status, url).toBe(400);
      expect((await errorOf(res)).errors?.[0]?.message).toContain("not allowed");
    }
    expect((await call(acme, "PUT", { enabled: true, url: "http://203.0.113.7:3128" })).status).toBe(200);
  });

  it("refuses every spelling of an inside address, naming the url field and the class", async () => {
    const { call, acme } = await setup({ allowPrivateProxy: false });
    const cases: [string, string][] = [
      ["http://2130706433:9", "loopback"],
      ["http://0x7f.0.0.1:9", "loopback"],
      ["http://0177.0.0.1:9", "loopback"],
      ["http://127.1:9", "loopback"],
      ["http://[::ffff:127.0.0.1]:9", "loopback"],
      ["http://[0:0:0:0:0:0:0:1]:9", "loopback"],
      ["http://localhost.:9", "loopback"],
      ["http://2852039166:80", "cloud metadata"],
      ["http://[fd00:ec2::254]:80", "cloud metadata"],
      ["http://0.0.0.0:3128", "unspecified"],
      ["http://[::]:3128", "unspecified"],
      ["http://172.20.0.1:3128", "private"],
      ["http://100.64.0.1:3128", "shared (carrier-grade NAT)"],
      ["http://[fe80::1]:3128", "link-local"],
      ["http://[fc00::1]:3128", "unique-local"],
      ["http://224.0.0.1:3128", "multicast"],
      ["http://255.255.255.255:3128", "broadcast"],
      ["http://240.0.0.1:3128", "reserved"],
      ["http://squid:3128", "internal name"],
    ];
    for (const [url, cls] of cases) {
      const res = await call(acme, "PUT", { enabled: true, url });
      expect(res.status, url).toBe(400);
      const { errors } = await errorOf(res);
      expect(errors, url).toEqual([{ path: "url", location: "body", message: `the proxy address is not allowed: ${cls}` }]);
    }
    expect((await call(acme, "GET")).status).toBe(200);
    expect((await answerOf(await call(acme, "GET"), ProxySettingsEnvelope)).data.url).toBeNull();
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
    expect((await answerOf(res, ProxyTest)).data).toMatchObject({
      reachable: true,
      target: "https://maullin.sii.cl",
      sii_status: 200,
      upstream: "sandbox",
    });
    const bad = await app.request("/api/v1/settings/proxy/test?ambiente=7", { method: "POST", headers: { "x-api-token": acme } });
    expect(bad.status).toBe(400);
  });
});

/** A TCP listener on 127.0.0.1 that records every connection it gets and answers with `answer`. */
async function listener(answer: (socket: Socket) => void = (socket) => socket.destroy()) {
  const connections: number[] = [];
  const server: Server = createTcpServer((socket) => {
    connections.push(Date.now());
    socket.on("error", () => {});
    answer(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, connections, port: (server.address() as AddressInfo).port };
}

/** Socket text that must never reach a tenant: codes, addresses, ports, parser messages. */
function expectNoSocketText(text: string, port: number) {
  for (const leak of [
    "ECONN",
    "EHOST",
    "ENOTFOUND",
    "127.0.0.1",
    "::1",
    String(port),
    "HTTP/1.1",
    "protocol",
    "fetch failed",
    "socket",
    "HPE_",
  ])
    expect(text, text).not.toContain(leak);
}

describe("proxy test in live mode: no reach inside", () => {
  let recorder: Awaited<ReturnType<typeof listener>>;
  beforeAll(async () => {
    recorder = await listener();
  });
  afterAll(() => recorder.server.close());

  /** A live-mode app whose operator did not allow private proxies, with a stubbable resolver. */
  async function liveApp(resolveAll?: ResolveAll, allowPrivateProxy = false) {
    const { deps } = testDeps(undefined, { upstream: "live", allowPrivateProxy });
    deps.sii = nodeTransport({ allowPrivateProxy, resolveAll });
    const app = createApp(() => deps);
    const token = await tokenFor(deps, { account: "acme", scopes: ["settings:read", "settings:write"] });
    // Stored as an older gateway may have accepted it: the check at connect time must hold alone.
    const store = (url: string) =>
      deps.settings.put("acme", "proxy", { enabled: true, url, username: "erp", password_box: null, updated_at: null });
    const request = async () => {
      const res = await app.request("/api/v1/settings/proxy/test?ambiente=0", { method: "POST", headers: { "x-api-token": token.secret } });
      return { status: res.status, body: await answerOf(res, ProxyTest) };
    };
    const test = async () => {
      const { status, body } = await request();
      expect(status).toBe(200);
      return body.data;
    };
    return { store, test, request };
  }

  it("opens no socket to any spelling of a loopback proxy", async () => {
    const { store, test } = await liveApp();
    const port = recorder.port;
    for (const host of [
      "127.0.0.1",
      "2130706433",
      "0x7f.0.0.1",
      "0177.0.0.1",
      "127.1",
      "[::ffff:127.0.0.1]",
      "[0:0:0:0:0:0:0:1]",
      "localhost.",
    ]) {
      await store(`http://${host}:${port}`);
      const data = await test();
      expect(data.reachable, host).toBe(false);
      expect(data.error, host).toBe("the proxy address is not allowed: loopback");
    }
    await store("http://2852039166:80");
    expect((await test()).error).toBe("the proxy address is not allowed: cloud metadata");
    expect(recorder.connections).toEqual([]);
  });

  it("refuses a name that resolves to an inside address, at connect time, without connecting", async () => {
    const asked: string[] = [];
    const { store, test } = await liveApp(async (name) => {
      asked.push(name);
      // One public and one loopback answer: every address must be allowed, not just the first.
      return [
        { address: "203.0.113.10", family: 4 },
        { address: "127.0.0.1", family: 4 },
      ];
    });
    await store(`http://proxy.example.cl:${recorder.port}`);
    const data = await test();
    expect(data).toMatchObject({ reachable: false, error: "the proxy address is not allowed: loopback" });
    expect(asked).toContain("proxy.example.cl");
    expect(recorder.connections).toEqual([]);
  });

  it("connects to the address it checked, without resolving the name again", async () => {
    let lookups = 0;
    // Allowed by the operator here, so the checked address (the listener) is used: the name
    // itself does not exist, so reaching the listener proves no second resolution happened.
    const { store, test } = await liveApp(async () => {
      lookups++;
      return [{ address: "127.0.0.1", family: 4 }];
    }, true);
    await store(`http://proxy.invalid-name.example:${recorder.port}`);
    const before = recorder.connections.length;
    const data = await test();
    expect(recorder.connections.length).toBeGreaterThan(before);
    expect(lookups).toBeGreaterThan(0);
    expect(data.reachable).toBe(false);
    recorder.connections.length = 0;
  });

  it("answers one message for a closed port, a refusing proxy and a service that is no proxy: no port scanning", async () => {
    const { store, test, request } = await liveApp(undefined, true);
    // One port, first served, then closed: the stored proxy (and so the answer's `proxy`) is the same.
    const web = createHttpServer((_req, res) => res.end("not a proxy"));
    web.on("connect", (_req, socket: Socket) => socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n"));
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
    const port = (web.address() as AddressInfo).port;
    await store(`http://127.0.0.1:${port}`);
    const refused = await request();
    await new Promise<void>((resolve) => web.close(() => resolve()));
    const closed = await request();
    expect(closed.status).toBe(refused.status);
    expect(withoutIds(closed.body)).toEqual(withoutIds(refused.body));
    expect(closed.body.data).toMatchObject({ reachable: false, error: UNREACHED, latency_ms: null, sii_status: null });
    expectNoSocketText(String(closed.body.data.error), port);

    const garbage = await listener((socket) => socket.end("SSH-2.0-OpenSSH_9.6\r\n"));
    await store(`http://127.0.0.1:${garbage.port}`);
    const notHttp = await test();
    expect(notHttp).toMatchObject({ reachable: false, error: UNREACHED });
    expectNoSocketText(notHttp.error ?? "", garbage.port);
    garbage.server.close();
  });

  it("maps a timeout and every transport failure to the same words, keeping only the policy's refusal", () => {
    const failure = (reason: string, code: "SII_GATEWAY_ERROR" = "SII_GATEWAY_ERROR") =>
      failureOf(new ApiError(502, code, "Could not reach the SII", { details: { service: "proxy_test", reason } }));
    for (const reason of [
      "timeout",
      "the proxy could not be reached",
      "the proxy refused the connection",
      "fetch failed: connect ECONNREFUSED 1.2.3.4:22",
    ]) {
      expect(failure(reason), reason).toEqual({ error: UNREACHED, status: null });
    }
    expect(failure("the proxy address is not allowed: loopback")).toEqual({
      error: "the proxy address is not allowed: loopback",
      status: null,
    });
  });
});

/** An answer without what differs per request (its id and time). */
function withoutIds(body: Record<string, unknown>): Record<string, unknown> {
  const { request_id: _, timestamp: __, ...rest } = body;
  return rest;
}
