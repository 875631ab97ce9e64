// Workers hand certificate logins and proxied calls to the Node egress: sealed, fresh, single-use,
// SII hosts only. Without an egress configured, such calls answer 501 naming the setting.
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerTransport } from "../../src/adapters/cloudflare/transport.ts";
import { parseCertificateCredential } from "../../src/dte/credentials.ts";
import { createNodeServer } from "../../src/entry/node-server.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { EGRESS_PATH, sealEgressRequest } from "../../src/sii/egress.ts";
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

const post = (body: string) => fetch(`${base}${EGRESS_PATH}`, { method: "POST", body });

describe("egress", () => {
  it("answers 501 naming EGRESS_URL when a Worker has no egress", async () => {
    const ctx = { transport: workerTransport({}), timeoutMs: 2_000 };
    const err = await certificateLogin(ctx, await certificate()).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 501, code: "NOT_IMPLEMENTED", init: { details: { setting: "EGRESS_URL" } } });
  });

  it("carries a certificate login from a Worker through the Node egress", async () => {
    const ctx = { transport: workerTransport({ url: base, secret }), timeoutMs: 5_000 };
    const jar = await certificateLogin(ctx, await certificate());
    expect(jar.get("RUT_NS")).toBe("22222222");
    expect(node.deps.sii.sandbox?.state.calls.get("cert_login")).toBe(1);
  });

  it("refuses requests sealed with another secret, replayed, stale, tampered, or not for the SII", async () => {
    const request = () => new Request("https://herculesr.sii.cl/cgi_AUT2000/autTermino.cgi");
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
