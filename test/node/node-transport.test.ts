// The Node transport over real TLS on 127.0.0.1: the certificate login with a client certificate
// (PEM and PFX) against a server that requires one, and SII traffic through a CONNECT proxy.
import { constants } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect, type Socket } from "node:net";
import { join } from "node:path";
import forge from "node-forge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CERTIFICATE_LOGIN_TLS, nodeTransport } from "../../src/adapters/node/transport.ts";
import { createApp } from "../../src/app.ts";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { ProxyTest } from "../../src/routes/settings/test-proxy.ts";
import { SANDBOX_CA, SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import type { SiiContext } from "../../src/sii/http.ts";
import { certificateLogin } from "../../src/sii/login.ts";
import { answerOf } from "../support/answers.ts";
import { testDeps, tokenFor } from "../support/app.ts";

const root = join(import.meta.dirname, "..", "..");
const sandbox = createDefaultSandbox();
const pedro = SANDBOX_TAXPAYER_CERTS["22222222-2"];

/** A server certificate for herculesr.sii.cl, palena.sii.cl and www4.sii.cl issued by the sandbox CA (test only). */
function serverCertificate() {
  const caKey = forge.pki.privateKeyFromPem(readFileSync(join(root, "src/sandbox/credentials/ca/key.pem"), "utf8"));
  const caCert = forge.pki.certificateFromPem(SANDBOX_CA.cert);
  const key = forge.pki.privateKeyFromPem(pedro.keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = "0abc";
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: "commonName", value: "herculesr.sii.cl" }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    {
      name: "subjectAltName",
      altNames: [
        { type: 2, value: "herculesr.sii.cl" },
        { type: 2, value: "palena.sii.cl" },
        { type: 2, value: "www4.sii.cl" },
      ],
    },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: pedro.keyPem };
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

let herculesr: Server;
/** The TLS version each request to herculesr arrived over, and whether it carried a client certificate. */
const handshakes: { protocol: string | null; certificate: boolean }[] = [];
let proxy: Server;
let tlsPort = 0;
let proxyPort = 0;
const proxied: { target: string; auth: string | undefined }[] = [];

beforeAll(async () => {
  const { cert, key } = serverCertificate();
  // SII hosts over real TLS: a client certificate is asked for (the certificate login needs one),
  // then the sandbox answers, with the peer's certificate when there was one.
  herculesr = createHttpsServer({ cert, key, ca: SANDBOX_CA.cert, requestCert: true, rejectUnauthorized: false }, async (req, res) => {
    const socket = req.socket as import("node:tls").TLSSocket;
    const peer = socket.authorized ? socket.getPeerCertificate() : null;
    handshakes.push({ protocol: socket.getProtocol(), certificate: peer !== null });
    const pem = peer ? `-----BEGIN CERTIFICATE-----\n${peer.raw.toString("base64")}\n-----END CERTIFICATE-----\n` : undefined;
    const request = new Request(`https://${req.headers.host}${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: req.method === "POST" ? await body(req) : undefined,
    });
    const answer = await sandbox.fetch(request, { clientCertificatePem: pem });
    const headers: Record<string, string | string[]> = Object.fromEntries(answer.headers);
    headers["set-cookie"] = answer.headers.getSetCookie();
    res.writeHead(answer.status, headers);
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => herculesr.listen(0, "127.0.0.1", resolve));
  tlsPort = (herculesr.address() as AddressInfo).port;

  // A CONNECT proxy that records what it was asked for, and knows where herculesr lives here.
  proxy = createHttpServer();
  proxy.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    proxied.push({ target: req.url ?? "", auth: req.headers["proxy-authorization"] });
    const upstream = connect(tlsPort, "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
});

afterAll(() => {
  herculesr?.close();
  proxy?.close();
});

function context(extra: Partial<SiiContext> = {}): SiiContext {
  const transport = nodeTransport({
    ca: SANDBOX_CA.cert,
    resolve: { "herculesr.sii.cl": `127.0.0.1:${tlsPort}`, "www4.sii.cl": `127.0.0.1:${tlsPort}` },
    allowPrivateProxy: true,
  });
  return { transport, timeoutMs: 5_000, ...extra };
}

describe("node transport", () => {
  it("logs in with the client certificate from a PEM and from a PFX over mutual TLS", async () => {
    const pem = await parseCertificateCredential({ "cert-data": pedro.certPem, "pkey-data": pedro.keyPem }, new Date());
    const pfx = await parseCertificateCredential({ "pfx-data": pedro.modernPfxBase64, passphrase: pedro.passphrase }, new Date());
    for (const credential of [pem, pfx]) {
      const jar = await certificateLogin(context(), {
        certificatePem: credential.certificatePem,
        privateKeyPem: credential.privateKeyPkcs8Pem,
      });
      expect(jar.get("RUT_NS")).toBe("22222222");
    }
  });

  it("offers at most TLS 1.2, with legacy renegotiation allowed, to certificate logins only", async () => {
    // devlas-cl/dte-sii SiiPortalAuth.js (SII_TLS_OPTS): the SII's certificate hosts need both.
    expect(CERTIFICATE_LOGIN_TLS.maxVersion).toBe("TLSv1.2");
    expect(CERTIFICATE_LOGIN_TLS.secureOptions & constants.SSL_OP_ALLOW_UNSAFE_LEGACY_RENEGOTIATION).toBeTruthy();
    expect(CERTIFICATE_LOGIN_TLS.secureOptions & constants.SSL_OP_LEGACY_SERVER_CONNECT).toBeTruthy();
    handshakes.length = 0;
    const credential = await parseCertificateCredential({ "cert-data": pedro.certPem, "pkey-data": pedro.keyPem }, new Date());
    await certificateLogin(context(), { certificatePem: credential.certificatePem, privateKeyPem: credential.privateKeyPkcs8Pem });
    const plain = await context().transport.fetch(new Request("https://herculesr.sii.cl/cgi_AUT2000/autLogout.cgi"));
    await plain.arrayBuffer();
    const withCertificate = handshakes.filter((h) => h.certificate);
    expect(withCertificate.length).toBeGreaterThan(0);
    expect(new Set(withCertificate.map((h) => h.protocol))).toEqual(new Set(["TLSv1.2"]));
    expect(handshakes.at(-1)).toEqual({ protocol: "TLSv1.3", certificate: false });
  });

  it("fails without a client certificate", async () => {
    const err = await certificateLogin(context(), { certificatePem: "", privateKeyPem: "" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, code: "AUTH_ERROR" });
  });

  it("sends SII traffic through the account's CONNECT proxy, with its credentials", async () => {
    proxied.length = 0;
    const credential = await parseCertificateCredential({ "cert-data": pedro.certPem, "pkey-data": pedro.keyPem }, new Date());
    // No resolve override: only the proxy knows where herculesr is, so success proves the path.
    const ctx: SiiContext = {
      transport: nodeTransport({ ca: SANDBOX_CA.cert, allowPrivateProxy: true }),
      timeoutMs: 5_000,
      proxy: { url: `http://127.0.0.1:${proxyPort}`, username: "erp", password: "pw" },
    };
    const jar = await certificateLogin(ctx, { certificatePem: credential.certificatePem, privateKeyPem: credential.privateKeyPkcs8Pem });
    expect(jar.get("TOKEN")).toBeTruthy();
    expect(proxied[0]).toEqual({ target: "herculesr.sii.cl:443", auth: `Basic ${btoa("erp:pw")}` });
  });
});

describe("proxy test operation (live mode)", () => {
  async function liveApp() {
    const { deps } = testDeps(undefined, { upstream: "live" });
    deps.sii = nodeTransport({ ca: SANDBOX_CA.cert, allowPrivateProxy: true });
    const app = createApp(() => deps);
    const token = await tokenFor(deps, { scopes: ["settings:read", "settings:write"] });
    const call = (method: string, path: string, body?: unknown) =>
      app.request(path, {
        method,
        headers: { "x-api-token": token.secret, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    return { call };
  }

  it("reaches the SII host of the ambiente through the proxy", async () => {
    proxied.length = 0;
    const { call } = await liveApp();
    await call("PUT", "/api/v1/settings/proxy", { enabled: true, url: `http://127.0.0.1:${proxyPort}`, username: "u", password: "p" });
    const res = await call("POST", "/api/v1/settings/proxy/test?ambiente=0");
    expect(res.status).toBe(200);
    const { data } = await answerOf(res, ProxyTest);
    expect(data).toMatchObject({ reachable: true, target: "https://palena.sii.cl", sii_status: 200, error: null, upstream: "live" });
    expect(proxied.map((p) => p.target)).toEqual(["palena.sii.cl:443"]);
  });

  it("reports an unreachable proxy without failing the call, and refuses when none is set", async () => {
    const { call } = await liveApp();
    expect((await call("POST", "/api/v1/settings/proxy/test")).status).toBe(400);
    const closed = createHttpServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await call("PUT", "/api/v1/settings/proxy", { enabled: true, url: `http://127.0.0.1:${port}` });
    const { data } = await answerOf(await call("POST", "/api/v1/settings/proxy/test?ambiente=1"), ProxyTest);
    expect(data).toMatchObject({ reachable: false, target: "https://maullin.sii.cl", sii_status: null });
    expect(data.error).toBe("the SII could not be reached through the proxy");
  });
});
