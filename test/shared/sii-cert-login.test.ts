// The certificate login (herculesr) against the sandbox: the transport hands the client
// certificate to the simulator as TLS would. Runs in Node and in workerd.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { EXPIRED_CERT, SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { sandboxTransport } from "../../src/sandbox/transport.ts";
import { certificationData } from "../../src/sii/certificacion.ts";
import type { SiiContext } from "../../src/sii/http.ts";
import { certificateLogin, enteredAs, logout, webSessionToken } from "../../src/sii/login.ts";
import livewire from "../fixtures/sii/dte/cert-login-livewire.http?raw";
import noSession from "../fixtures/sii/dte/cert-login-no-session.http?raw";
import consdcv from "../fixtures/sii/dte/consdcvinternetui.http?raw";
import consdcvNoToken from "../fixtures/sii/dte/consdcvinternetui-no-token.http?raw";
import { replay } from "../fixtures/sii/dte/replay.ts";

function setup() {
  const sandbox = createDefaultSandbox();
  const ctx: SiiContext = { transport: sandboxTransport(sandbox), timeoutMs: 2_000 };
  return { sandbox, ctx };
}

async function clientCertificate(pem: string, key: string, now = new Date()) {
  const credential = await parseCertificateCredential({ "cert-data": pem, "pkey-data": key }, now);
  return { certificatePem: credential.certificatePem, privateKeyPem: credential.privateKeyPkcs8Pem };
}

describe("certificate login", () => {
  it("opens a session for the certificate's RUT, from PEM and from PFX, and logs out", async () => {
    const { sandbox, ctx } = setup();
    const pedro = SANDBOX_TAXPAYER_CERTS["22222222-2"];
    const jar = await certificateLogin(ctx, await clientCertificate(pedro.certPem, pedro.keyPem));
    expect(jar.get("RUT_NS")).toBe("22222222");
    expect(sandbox.state.sessions.get(jar.get("TOKEN") ?? "")).toMatchObject({ rut: "22222222-2", kind: "cert" });

    const fromPfx = await parseCertificateCredential({ "pfx-data": pedro.legacyPfxBase64, passphrase: pedro.passphrase }, new Date());
    const second = await certificateLogin(ctx, { certificatePem: fromPfx.certificatePem, privateKeyPem: fromPfx.privateKeyPkcs8Pem });
    expect(second.get("RUT_NS")).toBe("22222222");

    await logout(ctx, jar, "cert");
    expect(sandbox.state.sessions.has(jar.get("TOKEN") ?? "")).toBe(false);
  });

  it("closes a certificate session at herculesr's autLogout.cgi (devlas-cl/dte-sii), which the sandbox answers, not autTermino.cgi", async () => {
    const { sandbox, ctx } = setup();
    const urls: string[] = [];
    const watched: SiiContext = {
      ...ctx,
      transport: {
        ...ctx.transport,
        fetch: (request, options) => {
          urls.push(request.url);
          return ctx.transport.fetch(request, options);
        },
      },
    };
    const pedro = SANDBOX_TAXPAYER_CERTS["22222222-2"];
    const jar = await certificateLogin(ctx, await clientCertificate(pedro.certPem, pedro.keyPem));
    await logout(watched, jar, "cert");
    expect(urls).toEqual(["https://herculesr.sii.cl/cgi_AUT2000/autLogout.cgi"]);
    expect(sandbox.state.sessions.has(jar.get("TOKEN") ?? "")).toBe(false);
    const old = await ctx.transport.fetch(new Request("https://herculesr.sii.cl/cgi_AUT2000/autTermino.cgi"), {});
    expect(old.status).toBe(404);
  });

  it("gets the session's TOKEN from consdcvinternetui/ after the login, as the sandbox hands it only there", async () => {
    const { sandbox, ctx } = setup();
    const pedro = SANDBOX_TAXPAYER_CERTS["22222222-2"];
    const jar = await certificateLogin(ctx, await clientCertificate(pedro.certPem, pedro.keyPem));
    expect(jar.get("NETSCAPE_LIVEWIRE.rut")).toBe("22222222");
    expect(sandbox.state.calls.get("session_token")).toBe(1);
    expect(sandbox.state.sessions.get(jar.get("TOKEN") ?? "")).toMatchObject({ rut: "22222222-2", kind: "cert" });
  });

  it("passes the representation choice (ESCOJA COMO DESEA INGRESAR) by entering as the holder", async () => {
    const { sandbox, ctx } = setup();
    const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
    const jar = await certificateLogin(ctx, await clientCertificate(juana.certPem, juana.keyPem));
    expect(jar.get("RUT_NS")).toBe("11111111");
    expect(sandbox.state.calls.get("cert_login")).toBe(2);
    expect(sandbox.state.pendingChoices.size).toBe(0);
  });

  it("enters as a represented company named in NETSCAPE_LIVEWIRE.rutm (devlas), and reads that company's data", async () => {
    const { sandbox, ctx } = setup();
    const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
    const certificate = await clientCertificate(juana.certPem, juana.keyPem);
    const jar = await certificateLogin(ctx, certificate, { actingFor: "76192083-9" });
    // The holder stays in rut and RUT_NS; the company is in rutm, where devlas's obtenerEmisor looks first.
    expect([jar.get("NETSCAPE_LIVEWIRE.rutm"), jar.get("NETSCAPE_LIVEWIRE.rut"), jar.get("RUT_NS")]).toEqual([
      "76192083",
      "11111111",
      "11111111",
    ]);
    expect(enteredAs(jar)).toEqual(["76192083-9", "11111111-1"]);
    expect(sandbox.state.sessions.get(webSessionToken(jar) ?? "")).toMatchObject({ rut: "76192083-9", holder: "11111111-1" });
    expect(await certificationData(ctx, jar, "76192083-9")).toMatchObject({ rut: "76192083-9", razon_social: "Comercial Sandbox SpA" });
    // A company the holder does not represent is still refused.
    await expect(certificateLogin(ctx, certificate, { actingFor: "22222222-2" })).rejects.toMatchObject({
      status: 403,
      code: "AUTH_ERROR",
    });
  });

  it("gives a session the SII opened with CSESSIONID alone that value as its token", async () => {
    const { sandbox, ctx } = setup();
    sandbox.state.csessionidOnly = true;
    const pedro = SANDBOX_TAXPAYER_CERTS["22222222-2"];
    const jar = await certificateLogin(ctx, await clientCertificate(pedro.certPem, pedro.keyPem));
    expect(jar.get("TOKEN")).toBeUndefined();
    expect(webSessionToken(jar)).toBe(jar.get("CSESSIONID"));
    expect(sandbox.state.sessions.get(webSessionToken(jar) ?? "")).toMatchObject({ rut: "22222222-2", kind: "cert" });
    await logout(ctx, jar, "cert");
    expect(sandbox.state.sessions.size).toBe(0);
  });

  it("answers 400 AUTH_ERROR without a certificate or with one the SII does not accept", async () => {
    const { ctx } = setup();
    await expect(certificateLogin(ctx, { certificatePem: "", privateKeyPem: "" })).rejects.toMatchObject({
      status: 400,
      code: "AUTH_ERROR",
    });
    const expired = await clientCertificate(EXPIRED_CERT.certPem, EXPIRED_CERT.keyPem, new Date("2020-06-01"));
    const err = await certificateLogin(ctx, expired).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, code: "AUTH_ERROR" });
  });

  describe("against the SII's recorded answers", () => {
    const LOGIN = "POST https://herculesr.sii.cl/cgi_AUT2000/CAutInicio.cgi";
    const TOKEN_PAGE = "GET https://www4.sii.cl/consdcvinternetui/";
    const anyCertificate = { certificatePem: "recorded", privateKeyPem: "recorded" };
    const login = (routes: Record<string, string>) => {
      const { transport, sent } = replay(routes);
      return { sent, run: () => certificateLogin({ transport, timeoutMs: 2_000 }, anyCertificate) };
    };

    it("accepts a session shown by NETSCAPE_LIVEWIRE/RUT_NS and takes TOKEN from consdcvinternetui/", async () => {
      const { run, sent } = login({ [LOGIN]: livewire, [TOKEN_PAGE]: consdcv });
      const jar = await run();
      expect([jar.get("TOKEN"), jar.get("RUT_NS"), jar.get("DV_NS")]).toEqual(["4PLG813706VT7", "22222222", "2"]);
      const tokenRequest = sent.find((r) => r.url === "https://www4.sii.cl/consdcvinternetui/");
      expect(tokenRequest?.cookie).toContain("NETSCAPE_LIVEWIRE.clave=");
    });

    it("fails clearly when no session cookie appears, or the session never gets a TOKEN", async () => {
      await expect(login({ [LOGIN]: noSession }).run()).rejects.toMatchObject({
        status: 502,
        code: "SII_GATEWAY_ERROR",
        message: expect.stringContaining("no NETSCAPE_LIVEWIRE, RUT_NS or TOKEN cookie"),
      });
      await expect(login({ [LOGIN]: livewire, [TOKEN_PAGE]: consdcvNoToken }).run()).rejects.toMatchObject({
        status: 502,
        message: expect.stringContaining("consdcvinternetui/ gave no TOKEN or CSESSIONID"),
      });
    });
  });
});
