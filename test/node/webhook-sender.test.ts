// The Node webhook sender against real servers on 127.0.0.1: what a receiver gets, how each answer and
// failure comes back, the bounds, and the address policy applied to every address a name resolves to,
// with the connection made to the address checked (the resolver is called once; TLS keeps the name).
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import forge from "node-forge";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ResolveAll } from "../../src/adapters/node/transport.ts";
import { createNodeWebhookSender } from "../../src/adapters/node/webhook-sender.ts";
import { WEBHOOK_BOUNDS, type WebhookRequest } from "../../src/ports/webhooks.ts";
import { SANDBOX_CA, SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";

const root = join(import.meta.dirname, "..", "..");

/** A server certificate for hooks.example.cl and 127.0.0.1, issued by the sandbox CA (test only). */
function receiverCertificate() {
  const caKey = forge.pki.privateKeyFromPem(readFileSync(join(root, "src/sandbox/credentials/ca/key.pem"), "utf8"));
  const caCert = forge.pki.certificateFromPem(SANDBOX_CA.cert);
  const keyPem = SANDBOX_TAXPAYER_CERTS["22222222-2"].keyPem;
  const key = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = "0bcd";
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: "commonName", value: "hooks.example.cl" }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    {
      name: "subjectAltName",
      altNames: [
        { type: 2, value: "hooks.example.cl" },
        { type: 7, ip: "127.0.0.1" },
      ],
    },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keyPem };
}

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage["headers"];
  body: string;
  /** The TLS server name the client sent (https only; false or undefined when none). */
  servername?: string | false | null;
}

const received: Received[] = [];
/** Settles when the streaming answer's socket closes: whether that was before the server had written all of it. */
let streamClosedEarly: Promise<boolean> = Promise.resolve(false);

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const longBody = `${"é".repeat(300)}${"x".repeat(2000)}`;

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readAll(req);
  const socket = req.socket as TLSSocket;
  received.push({ method: req.method, url: req.url, headers: req.headers, body, servername: socket.servername });
  switch (req.url) {
    case "/ok":
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      return;
    case "/error":
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(longBody);
      return;
    case "/redirect":
      res.writeHead(302, { location: "/target" }).end();
      return;
    case "/busy":
      res.writeHead(503, { "retry-after": "120" }).end("busy");
      return;
    case "/stream": {
      // 1 MiB in 16 KiB chunks; after 128 KiB the server waits (up to 5 s) for the client to hang up,
      // so a sender that reads on is seen finishing the answer rather than closing it.
      const chunk = Buffer.alloc(16 * 1024, "a");
      streamClosedEarly = new Promise<boolean>((resolve) => res.once("close", () => resolve(!res.writableFinished)));
      const closed = streamClosedEarly;
      res.writeHead(200, { "content-type": "application/octet-stream" });
      for (let sent = 0; sent < 1024 * 1024 && !res.destroyed; sent += chunk.length) {
        if (sent === 128 * 1024) await Promise.race([closed, new Promise((r) => setTimeout(r, 5_000))]);
        if (res.destroyed) break;
        if (!res.write(chunk)) await Promise.race([new Promise((r) => res.once("drain", r)), closed]);
      }
      if (!res.destroyed) res.end();
      return;
    }
    case "/hang":
      return; // never answers
    default:
      res.writeHead(404).end();
  }
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

let http: Server;
let https: Server;
let httpPort: number;
let httpsPort: number;
let closedPort: number;
const tls = receiverCertificate();

beforeAll(async () => {
  http = createHttpServer((req, res) => void handle(req, res));
  https = createHttpsServer({ cert: tls.cert, key: tls.key }, (req, res) => void handle(req, res));
  httpPort = await listen(http);
  httpsPort = await listen(https);
  const closed = createHttpServer();
  closedPort = await listen(closed);
  await new Promise((r) => closed.close(r));
});

afterAll(async () => {
  for (const server of [http, https]) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

beforeEach(() => {
  received.length = 0;
});

const headers = {
  "content-type": "application/json",
  "webhook-id": "msg_1",
  "webhook-timestamp": "1767225600",
  "webhook-signature": "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
};
const payload = JSON.stringify({ type: "envio.aceptado", data: { trackId: "42" }, note: "ñ" });

function local(path: string, port = httpPort, extra: Partial<WebhookRequest> = {}): WebhookRequest {
  return { url: `http://127.0.0.1:${port}${path}`, headers, body: payload, allowLoopback: true, ...extra };
}

/** A resolver answering fixed addresses for any name, counting its calls. */
function resolver(addresses: string[]): ResolveAll & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    calls.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(fn, { calls });
}

describe("Node webhook sender: answers", () => {
  const sender = createNodeWebhookSender();

  it("POSTs the exact headers and body, and a 200 is answered", async () => {
    const outcome = await sender.send(local("/ok"));
    expect(outcome).toEqual({ state: "answered", status: 200, retryAfter: null, body: '{"ok":true}' });
    expect(received).toHaveLength(1);
    const [got] = received;
    expect(got?.method).toBe("POST");
    expect(got?.body).toBe(payload);
    expect(got?.headers).toMatchObject(headers);
    expect(got?.headers["content-length"]).toBe(String(Buffer.byteLength(payload)));
    expect(got?.headers.host).toBe(`127.0.0.1:${httpPort}`);
  });

  it("answers a 500 with its body cut to the kept characters", async () => {
    const outcome = await sender.send(local("/error"));
    expect(outcome).toEqual({ state: "answered", status: 500, retryAfter: null, body: longBody.slice(0, WEBHOOK_BOUNDS.keptChars) });
  });

  it("does not follow a redirect: the 302 is the answer and its target is never asked", async () => {
    const outcome = await sender.send(local("/redirect"));
    expect(outcome).toMatchObject({ state: "answered", status: 302 });
    expect(received.map((r) => r.url)).toEqual(["/redirect"]);
  });

  it("passes Retry-After on", async () => {
    expect(await sender.send(local("/busy"))).toEqual({ state: "answered", status: 503, retryAfter: "120", body: "busy" });
  });

  it("reads at most 64 KiB of a 1 MiB answer and hangs up on the rest", async () => {
    const outcome = await sender.send(local("/stream"));
    expect(outcome).toEqual({ state: "answered", status: 200, retryAfter: null, body: "a".repeat(WEBHOOK_BOUNDS.keptChars) });
    expect(await streamClosedEarly).toBe(true);
  });
});

describe("Node webhook sender: failures", () => {
  it("a receiver that never answers fails as timed out", async () => {
    const sender = createNodeWebhookSender({ totalMs: 300 });
    const started = Date.now();
    const outcome = await sender.send(local("/hang"));
    expect(outcome).toEqual({ state: "failed", reason: "timed out after 0.3 s" });
    expect(received.map((r) => r.url)).toEqual(["/hang"]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("a closed port fails as refused", async () => {
    const outcome = await createNodeWebhookSender().send(local("/ok", closedPort));
    expect(outcome).toEqual({ state: "failed", reason: "the connection was refused" });
  });

  it("a name that does not resolve fails its attempt, and so does one with no address; registration accepts it", async () => {
    const failing: ResolveAll = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    const request = { url: "https://hooks.example.cl/sii", headers, body: payload, allowLoopback: false };
    for (const resolveAll of [failing, resolver([])]) {
      const sender = createNodeWebhookSender({ resolveAll });
      expect(await sender.send(request)).toEqual({ state: "failed", reason: "the name did not resolve" });
      // Registration accepts it (nothing to refuse yet); each attempt resolves and checks again.
      expect(await sender.check(request.url, false)).toBeNull();
    }
  });

  it("a certificate that does not name the host fails as TLS", async () => {
    const sender = createNodeWebhookSender({ resolveAll: resolver(["127.0.0.1"]), ca: SANDBOX_CA.cert });
    const outcome = await sender.send({ url: `https://other.example.cl:${httpsPort}/ok`, headers, body: payload, allowLoopback: true });
    expect(outcome.state).toBe("failed");
    expect(outcome.state === "failed" && outcome.reason).toMatch(/^TLS failed: .*other\.example\.cl/);
    expect(received).toHaveLength(0);
  });

  it("an untrusted certificate fails as TLS", async () => {
    const outcome = await createNodeWebhookSender().send(local("/ok", httpsPort, { url: `https://127.0.0.1:${httpsPort}/ok` }));
    expect(outcome.state === "failed" && outcome.reason).toMatch(/^TLS failed: /);
    expect(received).toHaveLength(0);
  });
});

describe("Node webhook sender: the address policy", () => {
  it("refuses loopback outside sandbox mode without connecting", async () => {
    const sender = createNodeWebhookSender();
    const outcome = await sender.send(local("/ok", httpPort, { allowLoopback: false }));
    expect(outcome).toEqual({ state: "not_allowed", reason: "the receiver's address is not allowed: loopback" });
    expect(await sender.check(`http://127.0.0.1:${httpPort}/ok`, false)).toBe("the receiver's address is not allowed: loopback");
    expect(received).toHaveLength(0);
  });

  it("refuses a name when any address it resolves to is refused", async () => {
    const cases: [string[], boolean, string][] = [
      [["10.0.0.1"], false, "private"],
      [["10.0.0.1"], true, "private"],
      [["93.184.216.34", "127.0.0.1"], false, "loopback"],
      [["93.184.216.34", "169.254.169.254"], true, "cloud metadata"],
      [["2606:4700:4700::1111", "::ffff:192.168.0.1"], false, "private"],
    ];
    for (const [addresses, allowLoopback, cls] of cases) {
      const resolveAll = resolver(addresses);
      const sender = createNodeWebhookSender({ resolveAll });
      const url = `https://hooks.example.cl:${httpsPort}/ok`;
      const reason = `the receiver's address is not allowed: ${cls}`;
      expect(await sender.send({ url, headers, body: payload, allowLoopback })).toEqual({ state: "not_allowed", reason });
      expect(await sender.check(url, allowLoopback)).toBe(reason);
      expect(resolveAll.calls).toEqual(["hooks.example.cl", "hooks.example.cl"]);
    }
    expect(received).toHaveLength(0);
  });

  it("refuses by the URL before resolving anything", async () => {
    const resolveAll = resolver(["93.184.216.34"]);
    const sender = createNodeWebhookSender({ resolveAll });
    expect(await sender.send({ url: "http://hooks.example.cl/ok", headers, body: payload, allowLoopback: false })).toEqual({
      state: "not_allowed",
      reason: "the URL must be https",
    });
    expect(await sender.check("https://10.1.2.3/ok", true)).toBe("the receiver's address is not allowed: private");
    expect(await sender.check("https://hooks.internal/ok", true)).toBe("the receiver's address is not allowed: internal name");
    expect(resolveAll.calls).toEqual([]);
  });

  it("connects to the address the name was checked at, once resolved, keeping the name for TLS and Host", async () => {
    const resolveAll = resolver(["127.0.0.1"]);
    const sender = createNodeWebhookSender({ resolveAll, ca: SANDBOX_CA.cert });
    const url = `https://hooks.example.cl:${httpsPort}/ok`;
    expect(await sender.check(url, true)).toBeNull();
    expect(await sender.check(url, false)).toBe("the receiver's address is not allowed: loopback");
    const outcome = await sender.send({ url, headers, body: payload, allowLoopback: true });
    expect(outcome).toEqual({ state: "answered", status: 200, retryAfter: null, body: '{"ok":true}' });
    expect(resolveAll.calls).toEqual(["hooks.example.cl", "hooks.example.cl", "hooks.example.cl"]);
    expect(received).toHaveLength(1);
    expect(received[0]?.servername).toBe("hooks.example.cl");
    expect(received[0]?.headers.host).toBe(`hooks.example.cl:${httpsPort}`);
    expect(received[0]?.body).toBe(payload);
  });

  it("tries the next checked address when one refuses the connection", async () => {
    const resolveAll = resolver(["::1", "127.0.0.1"]);
    const sender = createNodeWebhookSender({ resolveAll, ca: SANDBOX_CA.cert });
    const outcome = await sender.send({ url: `https://hooks.example.cl:${httpsPort}/ok`, headers, body: payload, allowLoopback: true });
    expect(outcome).toMatchObject({ state: "answered", status: 200 });
    expect(resolveAll.calls).toHaveLength(1);
  });

  it("sends no server name to an IP literal over https", async () => {
    const sender = createNodeWebhookSender({ ca: SANDBOX_CA.cert });
    const outcome = await sender.send({ url: `https://127.0.0.1:${httpsPort}/ok`, headers, body: payload, allowLoopback: true });
    expect(outcome).toMatchObject({ state: "answered", status: 200 });
    expect(received[0]?.servername).toBeFalsy();
  });
});
