// Workers hand certificate logins and proxied calls to the Node egress: sealed, fresh, single-use,
// SII hosts only, signed before the body is read and bounded while it streams. Without an egress
// configured, such calls answer 501 naming the setting.
import { request as httpRequest } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerTransport } from "../../src/adapters/cloudflare/transport.ts";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { createNodeServer } from "../../src/entry/node-server.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { EGRESS_AUTH_HEADER, EGRESS_PATH, egressAuth, isSiiUrl, sealEgressRequest } from "../../src/sii/egress.ts";
import { siiFetch } from "../../src/sii/http.ts";
import { certificateLogin } from "../../src/sii/login.ts";

const secret = "egress-secret-for-tests-0123456789abcdef";
let base = "";
let node: Awaited<ReturnType<typeof createNodeServer>>;

beforeAll(async () => {
  node = await createNodeServer({
    env: { SII_UPSTREAM: "sandbox", EGRESS_SECRET: secret },
    database: ":memory:",
    publicDir: "public",
    log: { log: () => {} },
  });
  await new Promise<void>((resolve) => node.server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(node.server.address() as AddressInfo).port}`;
});
afterAll(() => node?.server.close());

async function certificate() {
  const pedro = SANDBOX_TAXPAYER_CERTS["22222222-2"];
  const credential = await parseCertificateCredential({ "cert-data": pedro.certPem, "pkey-data": pedro.keyPem }, new Date());
  return { certificatePem: credential.certificatePem, privateKeyPem: credential.privateKeyPkcs8Pem };
}

const post = async (body: string, auth?: string) =>
  fetch(`${base}${EGRESS_PATH}`, {
    method: "POST",
    body,
    headers: { [EGRESS_AUTH_HEADER]: auth ?? (await egressAuth(secret, Date.now())) },
  });

/** What a Worker sends itself (calls needing no egress) goes to the egress's sandbox here. */
const workerSend: typeof fetch = (input, init) => {
  const request = new Request(input, init);
  return isSiiUrl(request.url) ? node.deps.sii.fetch(request) : fetch(request);
};

/**
 * Streams a chunked body of up to `total` bytes to the egress, as fast as the socket takes it,
 * and stops when the answer arrives: how much was sent by then shows whether the egress waited
 * for the whole body before answering.
 */
function pushBody(url: string, headers: Record<string, string>, total: number) {
  return new Promise<{ status: number; sentBeforeAnswer: number; ms: number }>((resolve, reject) => {
    const started = performance.now();
    const chunk = Buffer.alloc(256 * 1024, "A");
    let sent = 0;
    let answered = false;
    const req = httpRequest(url, { method: "POST", headers: { ...headers, "transfer-encoding": "chunked" } }, (res) => {
      answered = true;
      res.resume();
      resolve({ status: res.statusCode ?? 0, sentBeforeAnswer: sent, ms: performance.now() - started });
      req.destroy();
    });
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.byteLength;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe("egress", () => {
  it("answers 501 naming EGRESS_URL when a Worker has no egress", async () => {
    const ctx = { transport: workerTransport({}), timeoutMs: 2_000 };
    const err = await certificateLogin(ctx, await certificate()).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 501, code: "NOT_IMPLEMENTED", init: { details: { setting: "EGRESS_URL" } } });
  });

  it("carries a certificate login from a Worker through the Node egress", async () => {
    const ctx = { transport: workerTransport({ url: base, secret }, workerSend), timeoutMs: 5_000 };
    const jar = await certificateLogin(ctx, await certificate());
    expect(jar.get("RUT_NS")).toBe("22222222");
    expect(simulatorOf(node.deps.sii).state.calls.get("cert_login")).toBe(1);
  });

  it("refuses requests sealed with another secret, replayed, stale, tampered, or not for the SII", async () => {
    const request = () => new Request("https://herculesr.sii.cl/cgi_AUT2000/autLogout.cgi");
    const good = await sealEgressRequest(secret, request(), {}, Date.now());
    expect((await post(good)).status).toBe(200);
    expect((await post(good)).status).toBe(401);
    expect((await post(await sealEgressRequest(`${secret}-other`, request(), {}, Date.now()))).status).toBe(401);
    expect((await post(await sealEgressRequest(secret, request(), {}, Date.now() - 5 * 60_000))).status).toBe(401);
    const fresh = await sealEgressRequest(secret, request(), {}, Date.now());
    expect((await post(`${fresh.slice(0, -6)}AAAAAA`)).status).toBe(401);
    const foreign = await sealEgressRequest(secret, new Request("https://example.com/"), {}, Date.now());
    expect((await post(foreign)).status).toBe(400);
  });

  it("refuses a request without a fresh signature from this secret, whatever its body", async () => {
    const sealed = await sealEgressRequest(secret, new Request("https://herculesr.sii.cl/cgi_AUT2000/autLogout.cgi"), {}, Date.now());
    const stale = await egressAuth(secret, Date.now() - 5 * 60_000);
    const foreign = await egressAuth(`${secret}-other`, Date.now());
    for (const auth of ["", "garbage", stale, foreign]) expect((await post(sealed, auth)).status, auth).toBe(401);
  });

  it("answers 401 to an unsigned body before reading it", async () => {
    const total = 20 * 1024 * 1024;
    const rss = process.memoryUsage().rss;
    const answer = await pushBody(`${base}${EGRESS_PATH}`, {}, total);
    expect(answer.status).toBe(401);
    // Socket buffers hold a few MiB at most; the 20 MiB body was not waited for.
    expect(answer.sentBeforeAnswer).toBeLessThan(8 * 1024 * 1024);
    expect(process.memoryUsage().rss - rss).toBeLessThan(48 * 1024 * 1024);
  });

  it("answers 413 to a signed body over the limit while it streams, without holding it", async () => {
    // MAX_BODY_BYTES 1 MiB here: the sealed limit is about 2 MiB (base64 twice, plus headers).
    const small = await createNodeServer({
      env: { SII_UPSTREAM: "sandbox", EGRESS_SECRET: secret, MAX_BODY_BYTES: String(1024 * 1024) },
      database: ":memory:",
      publicDir: "public",
      log: { log: () => {} },
    });
    await new Promise<void>((resolve) => small.server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(small.server.address() as AddressInfo).port}${EGRESS_PATH}`;
    const rss = process.memoryUsage().rss;
    const answer = await pushBody(url, { [EGRESS_AUTH_HEADER]: await egressAuth(secret, Date.now()) }, 20 * 1024 * 1024);
    expect(answer.status).toBe(413);
    expect(answer.sentBeforeAnswer).toBeLessThan(10 * 1024 * 1024);
    expect(process.memoryUsage().rss - rss).toBeLessThan(48 * 1024 * 1024);
    const declared = await fetch(url, {
      method: "POST",
      headers: { [EGRESS_AUTH_HEADER]: await egressAuth(secret, Date.now()) },
      body: new Uint8Array(3 * 1024 * 1024),
    });
    expect(declared.status).toBe(413);
    small.server.close();
  });

  it("refuses an inside proxy on the Worker itself, and again at the egress, without connecting", async () => {
    const connections: number[] = [];
    const recorder = createTcpServer((socket) => {
      connections.push(Date.now());
      socket.destroy();
    });
    await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
    const port = (recorder.address() as AddressInfo).port;
    const live = await createNodeServer({
      env: { SII_UPSTREAM: "live", SECRET_KEY: "live-secret-key-for-tests-0123456789abcdef", EGRESS_SECRET: secret },
      database: ":memory:",
      publicDir: "public",
      log: { log: () => {} },
    });
    await new Promise<void>((resolve) => live.server.listen(0, "127.0.0.1", resolve));
    const egressUrl = `http://127.0.0.1:${(live.server.address() as AddressInfo).port}`;
    const call = (allowPrivateProxy: boolean, url: string) =>
      siiFetch(
        {
          transport: workerTransport({ url: egressUrl, secret, allowPrivateProxy }),
          timeoutMs: 5_000,
          proxy: { url, username: "erp", password: "pw" },
        },
        new Request("https://palena.sii.cl/DTEWS/CrSeed.jws?WSDL"),
        { service: "proxy_test", read: false },
      ).catch((e: { init?: { details?: { reason?: string } } }) => e.init?.details?.reason);
    // On the Worker: literal addresses, however written.
    expect(await call(false, `http://2130706433:${port}`)).toBe("the proxy address is not allowed: loopback");
    expect(await call(false, `http://[::ffff:127.0.0.1]:${port}`)).toBe("the proxy address is not allowed: loopback");
    // A Worker that lets it through still meets the egress's own check, in the same words.
    expect(await call(true, `http://0x7f.0.0.1:${port}`)).toBe("the proxy address is not allowed: loopback");
    expect(connections).toEqual([]);
    live.server.close();
    recorder.close();
  });

  it("does not exist without EGRESS_SECRET", async () => {
    const plain = await createNodeServer({
      env: { SII_UPSTREAM: "sandbox" },
      database: ":memory:",
      publicDir: "public",
      log: { log: () => {} },
    });
    await new Promise<void>((resolve) => plain.server.listen(0, "127.0.0.1", resolve));
    const res = await fetch(`http://127.0.0.1:${(plain.server.address() as AddressInfo).port}${EGRESS_PATH}`, {
      method: "POST",
      body: "x",
    });
    expect(res.status).toBe(404);
    plain.server.close();
  });
});
