// The trust store the gateway ships: the bundled certificates come out of the generated module
// byte for byte as the fixtures hold them, every bundled intermediate chains to a bundled root,
// and the routes' store adds the operator's TRUST_ANCHORS_PEM and, in sandbox mode only, the
// sandbox's CA.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { bundledDer, LEFT_OUT } from "../../scripts/trust-bundle.mjs";
import { certificateLinks } from "../../src/certificates/certificate.ts";
import { configFromEnv } from "../../src/config.ts";
import { bundledCertificates } from "../../src/dte/trust/bundled.ts";
import { BUNDLED_CERTIFICATE_COUNT } from "../../src/dte/trust/bundled-data.ts";
import { buildTrustStore, trustStoreSize, verifyChain } from "../../src/dte/trust/chain.ts";
import type { AppEnv } from "../../src/platform/context.ts";
import type { Deps } from "../../src/ports/deps.ts";
import { SANDBOX_CA, SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { trustStoreFor } from "../../src/services/trust-store.ts";
import esign from "../fixtures/real-documents/sii-crypto/DTE--60910000-1--33--2336600-cert.pem?raw";
import ecertchile from "../fixtures/real-documents/sii-crypto/DTE--76354771-K--33--170-cert.pem?raw";
import acepta from "../fixtures/real-documents/sii-crypto/DTE--76399752-9--33--25568-cert.pem?raw";
import { testDeps } from "../support/app.ts";
import { makeCertificate, rsaKey } from "../support/certificates.ts";

const juanaPem = SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem;
const at = new Date("2026-06-01T00:00:00Z");

describe("the bundled collection", () => {
  it("holds the fixtures' certificates byte for byte, all but the ones left out", async () => {
    const bundled = await bundledCertificates();
    const fixtures = bundledDer();
    expect(bundled).toHaveLength(BUNDLED_CERTIFICATE_COUNT);
    expect(bundled.map((der) => Buffer.from(der).toString("base64"))).toEqual(fixtures.map((der) => der.toString("base64")));
    expect(bundled.length + Object.keys(LEFT_OUT).length).toBe(51);
  });

  it("calls every root self-signed and chains every intermediate to a bundled root", async () => {
    const bundled = await bundledCertificates();
    const store = buildTrustStore(bundled);
    expect(await trustStoreSize(store)).toBe(bundled.length);
    const seen = { roots: 0, intermediates: 0 };
    for (const der of bundled) {
      const links = certificateLinks(der);
      if (!links) throw new Error("unreadable bundled certificate");
      // Checked in the middle of its validity, when its issuer's is also running.
      const middle = new Date((links.notBefore.getTime() + Math.min(links.notAfter.getTime(), Date.now())) / 2);
      const verdict = await verifyChain(der, store, middle);
      const root = links.issuerName === links.subjectName;
      expect(verdict.confianza, `${links.subjectName}: ${verdict.motivo}`).toBe(root ? "autofirmado" : "cadena_valida");
      seen[root ? "roots" : "intermediates"]++;
    }
    // The collection's 17 self-signed roots (VERIFICATION.md), the VeriSign Class 2 root among them.
    expect(seen).toEqual({ roots: 17, intermediates: 27 });
  });

  it("does not hold the class-2 CAs of real DTE signers: they stay emisor_desconocido", async () => {
    const store = buildTrustStore(await bundledCertificates());
    const issuers = [];
    for (const pem of [ecertchile, acepta, esign]) {
      const der = new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----|\s+/g, ""), "base64"));
      const verdict = await verifyChain(der, store, new Date("2019-04-01"));
      expect(verdict.confianza).toBe("emisor_desconocido");
      issuers.push(verdict.motivo);
    }
    expect(issuers.join("\n")).toMatch(
      /E-CERTCHILE CA FIRMA ELECTRONICA SIMPLE[\s\S]*Clase 2 Persona Natural - G4[\s\S]*Firma Tributaria CA/,
    );
  });
});

/** trustStoreFor(deps) seen from a one-route app over `deps`. */
async function verdictThrough(deps: Deps, pem: string) {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("deps", deps);
    await next();
  });
  app.post("/", async (c) =>
    c.json(await verifyChain(new Uint8Array(Buffer.from(await c.req.text(), "base64")), trustStoreFor(c.get("deps")), at)),
  );
  const der = pem.replace(/-----[^-]+-----|\s+/g, "");
  return (await app.request("/", { method: "POST", body: der })).json();
}

describe("the routes' trust store", () => {
  it("trusts the sandbox CA in sandbox mode, and only there", async () => {
    const { deps } = testDeps();
    expect(await verdictThrough(deps, juanaPem)).toMatchObject({
      confianza: "cadena_valida",
      cadena: ["Juana Pérez Soto", "SII Sandbox CA"],
    });
    const live: Deps = { ...deps, sii: { ...deps.sii, sandbox: undefined } };
    expect(await verdictThrough(live, juanaPem)).toMatchObject({ confianza: "emisor_desconocido" });
  });

  it("adds the operator's TRUST_ANCHORS_PEM", async () => {
    const config = configFromEnv({ SII_UPSTREAM: "live", SECRET_KEY: "x".repeat(32), TRUST_ANCHORS_PEM: `${SANDBOX_CA.cert}\n` });
    expect(config.trustAnchors).toHaveLength(1);
    const { deps } = testDeps(undefined, { trustAnchors: config.trustAnchors });
    const live: Deps = { ...deps, sii: { ...deps.sii, sandbox: undefined } };
    expect(await verdictThrough(live, juanaPem)).toMatchObject({ confianza: "cadena_valida" });
  });

  it("refuses a TRUST_ANCHORS_PEM that holds no certificate, or something else", async () => {
    const env = { SII_UPSTREAM: "live", SECRET_KEY: "x".repeat(32) };
    expect(() => configFromEnv({ ...env, TRUST_ANCHORS_PEM: "not pem" })).toThrow(/TRUST_ANCHORS_PEM/);
    const key = SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem;
    expect(() => configFromEnv({ ...env, TRUST_ANCHORS_PEM: `${SANDBOX_CA.cert}${key}` })).toThrow(/only PEM certificates/);
    expect(configFromEnv(env).trustAnchors).toBeUndefined();
  });

  it("leaves a signer from an unknown CA unknown with the bundled collection loaded", async () => {
    const ca = await makeCertificate({ name: "E-CERTCHILE CA FIRMA ELECTRONICA SIMPLE", key: await rsaKey(), ca: true });
    const leaf = await makeCertificate({ name: "Signer", key: await rsaKey(), issuer: ca });
    const pem = `-----BEGIN CERTIFICATE-----\n${Buffer.from(leaf.der).toString("base64")}\n-----END CERTIFICATE-----\n`;
    const { deps } = testDeps();
    expect(await verdictThrough(deps, pem)).toMatchObject({ confianza: "emisor_desconocido" });
  });
});
