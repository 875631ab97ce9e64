// The SOAP token flow against the sandbox SII: seed, signed seed (verified by the sandbox),
// token, caching, isolation between accounts, early invalidation, and failure mapping.
// Runs in Node and in workerd.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { signSeed } from "../../src/dte/sign/seed.ts";
import { EXPIRED_CERT, SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { requestToken, TokenRejected, withSoapToken } from "../../src/sii/token.ts";
import { failure, sandboxSetup } from "../support/sii.ts";

const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const credential = () => parseCertificateCredential({ "cert-data": juana.certPem, "pkey-data": juana.keyPem }, new Date());

const setup = (now = () => Date.now()) => sandboxSetup({ now });

describe("SOAP token", () => {
  it("gets a token on both ambientes with a seed signature the sandbox verifies", async () => {
    const { sandbox, ctx } = setup();
    // Pinned tidy: this test counts seed and token calls exactly; a rough 500 on `seed` adds a retried call.
    sandbox.state.rough = null;
    const signer = await credential();
    for (const ambiente of ["0", "1"] as const) {
      const token = await requestToken(ctx, signer, ambiente);
      expect(token).toMatch(/^[A-Z0-9]{13}$/);
      expect(sandbox.state.tokens.get(token)).toMatchObject({ rut: "11111111-1", ambiente });
    }
    expect(Object.fromEntries(sandbox.state.calls)).toEqual({ seed: 2, token: 2 });
  });

  it("produces the SII's XMLDSig profile: KeyValue before X509Data, one transform, enveloped", async () => {
    const signed = await signSeed("123456789012", await credential());
    expect(signed).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?><getToken><item><Semilla>123456789012<\/Semilla><\/item><Signature xmlns=/,
    );
    expect(signed.indexOf("<KeyValue>")).toBeLessThan(signed.indexOf("<X509Data>"));
    expect(signed.match(/<Transform /g)).toHaveLength(1);
    expect(signed).toContain('<Reference URI="">');
    expect(signed.endsWith("</Signature></getToken>")).toBe(true);
  });

  it("is refused when the signature does not match (ESTADO 10) or the certificate is unknown to the SII", async () => {
    const { ctx } = setup();
    const signer = await credential();
    const pedro = await parseCertificateCredential(
      { "cert-data": SANDBOX_TAXPAYER_CERTS["22222222-2"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["22222222-2"].keyPem },
      new Date(),
    );
    // Juana's certificate with Pedro's key: the SII cannot verify it.
    const forged = { ...signer, privateKey: pedro.privateKey };
    const err = await failure(requestToken(ctx, forged, "0"));
    expect([err.status, err.code, err.init.details?.sii_estado]).toEqual([400, "AUTH_ERROR", "10"]);

    const expired = await parseCertificateCredential(
      { "cert-data": EXPIRED_CERT.certPem, "pkey-data": EXPIRED_CERT.keyPem },
      new Date("2020-06-01"),
    );
    const refused = await failure(requestToken(ctx, expired, "0"));
    expect([refused.code, refused.init.details?.sii_estado]).toEqual(["AUTH_ERROR", "11"]);
  });

  it("reuses a token per account and credential, never across accounts", async () => {
    const { sandbox, ctx } = setup();
    const signer = await credential();
    const owner = (account: string) => ({ account, fingerprint: signer.fingerprint, signer });
    const seen: string[] = [];
    for (const account of ["acme", "acme", "globex"]) {
      await withSoapToken(ctx, owner(account), "0", Date.now, async (token) => seen.push(token));
    }
    expect(seen[0]).toBe(seen[1]);
    expect(seen[2]).not.toBe(seen[0]);
    expect(sandbox.state.calls.get("token")).toBe(2);
  });

  it("gets a new token once when the SII says it no longer knows it", async () => {
    const { sandbox, ctx } = setup();
    const signer = await credential();
    const owner = { account: "acme", fingerprint: signer.fingerprint, signer };
    await withSoapToken(ctx, owner, "0", Date.now, async () => "warm");
    sandbox.state.forgetTokens();
    const used: string[] = [];
    const result = await withSoapToken(ctx, owner, "0", Date.now, async (token) => {
      used.push(token);
      if (!sandbox.state.tokens.has(token)) throw new TokenRejected("TOKEN NO EXISTE");
      return "done";
    });
    expect(result).toBe("done");
    expect(used).toHaveLength(2);
    expect(sandbox.state.calls.get("token")).toBe(2);

    // Rejected twice in a row: the second rejection is not retried again.
    await expect(
      withSoapToken(ctx, owner, "0", Date.now, async () => {
        throw new TokenRejected("TOKEN NO EXISTE");
      }),
    ).rejects.toBeInstanceOf(TokenRejected);
  });

  it("maps faults: maintenance 503, HTML instead of XML 502, throttling 429", async () => {
    const { ctx, fault } = setup();
    const signer = await credential();
    fault("seed", "maintenance");
    expect((await failure(requestToken(ctx, signer, "0"))).code).toBe("SII_UNAVAILABLE");
    fault("token", "html");
    const html = await failure(requestToken(ctx, signer, "0"));
    expect([html.status, html.code]).toEqual([502, "SII_GATEWAY_ERROR"]);
    expect(String(html.init.details?.sii_message)).toContain("Servicio no disponible");
    fault("palena.sii.cl", "throttle");
    expect((await failure(requestToken(ctx, signer, "0"))).code).toBe("SII_RATE_LIMIT");
  });

  it("refuses an expired seed", async () => {
    let clock = Date.now();
    const { ctx, sandbox } = setup(() => clock);
    // Pinned tidy: this test fetches CrSeed through the bare transport, without the gateway's retry of
    // a read, so a rough HTTP 500 would be its answer.
    sandbox.state.rough = null;
    const signer = await credential();
    // Ask for a seed, let it expire, then sign it: the sandbox refuses with a non-00 ESTADO.
    const seedResponse = await ctx.transport.fetch(
      new Request("https://palena.sii.cl/DTEWS/CrSeed.jws", {
        method: "POST",
        body: "<soapenv:Envelope><soapenv:Body><getSeed/></soapenv:Body></soapenv:Envelope>",
      }),
    );
    const seed = /SEMILLA&gt;(\d+)&lt;/.exec(await seedResponse.text())?.[1] ?? "";
    clock += 3 * 60 * 1000;
    const signed = await signSeed(seed, signer);
    const escaped = signed.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    const res = await ctx.transport.fetch(
      new Request("https://palena.sii.cl/DTEWS/GetTokenFromSeed.jws", {
        method: "POST",
        body: `<soapenv:Envelope><soapenv:Body><getToken><pszXml>${escaped}</pszXml></getToken></soapenv:Body></soapenv:Envelope>`,
      }),
    );
    expect(await res.text()).toContain("ESTADO&gt;-07&lt;");
    expect(sandbox.state.tokens.size).toBe(0);
  });
});
