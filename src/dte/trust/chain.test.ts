// The chain verifier on the sandbox's PKI, on real DTE signers' certificates (whose class-2 CAs are
// in no public bundle) and on chains made in the test: self-signed, unknown issuer, altered
// signature, expired, through an intermediate, and stores built to make the walk expensive.
import { describe, expect, it, vi } from "vitest";
import esign from "../../../test/fixtures/real-documents/sii-crypto/DTE--60910000-1--33--2336600-cert.pem?raw";
import ecertchile from "../../../test/fixtures/real-documents/sii-crypto/DTE--76354771-K--33--170-cert.pem?raw";
import acepta from "../../../test/fixtures/real-documents/sii-crypto/DTE--76399752-9--33--25568-cert.pem?raw";
import ecertchile61 from "../../../test/fixtures/real-documents/sii-crypto/DTE--96670340-7--61--110616-cert.pem?raw";
import { alterSignature, ecKey, makeCertificate, pssKey, rsaKey, type TestCertificate } from "../../../test/support/certificates.ts";
import { certificateLinks } from "../../certificates/certificate.ts";
import { readDerBlocks } from "../../certificates/pem.ts";
import { EXPIRED_CERT, SANDBOX_CA, SANDBOX_TAXPAYER_CERTS } from "../../sandbox/credentials/index.ts";
import { buildTrustStore, trustStoreSize, verifyChain } from "./chain.ts";

const der = (pem: string): Uint8Array => {
  const block = readDerBlocks(pem)?.[0];
  if (!block) throw new Error("not PEM");
  return block.der;
};
const sandboxStore = buildTrustStore([der(SANDBOX_CA.cert)]);
const at = new Date("2026-06-01T12:00:00Z");

describe("the sandbox's PKI", () => {
  it("chains both taxpayer certificates to the sandbox CA", async () => {
    for (const credential of Object.values(SANDBOX_TAXPAYER_CERTS)) {
      const verdict = await verifyChain(der(credential.certPem), sandboxStore, at);
      expect(verdict.confianza).toBe("cadena_valida");
      expect(verdict.motivo).toBeNull();
      expect(verdict.cadena).toHaveLength(2);
      expect(verdict.cadena[1]).toBe("SII Sandbox CA");
    }
    const juana = await verifyChain(der(SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem), sandboxStore, at);
    expect(juana.cadena).toEqual(["Juana Pérez Soto", "SII Sandbox CA"]);
  });

  it("finds no issuer in an empty store", async () => {
    const verdict = await verifyChain(der(SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem), buildTrustStore([]), at);
    expect(verdict).toEqual({
      confianza: "emisor_desconocido",
      cadena: ["Juana Pérez Soto"],
      motivo: 'the issuer "SII Sandbox CA" of "Juana Pérez Soto" is not in the trust store',
    });
  });

  it("names the validity of a certificate expired at the signing time, and of a CA not yet valid then", async () => {
    const expired = await verifyChain(der(EXPIRED_CERT.certPem), sandboxStore, at);
    expect(expired.confianza).toBe("cadena_invalida");
    expect(expired.motivo).toBe('"Juana Pérez Soto" had expired at 2026-06-01T12:00:00.000Z (valid until 2021-01-01)');
    // Signed in 2020, while the certificate was valid, but the sandbox CA dates from 2025.
    const then = await verifyChain(der(EXPIRED_CERT.certPem), sandboxStore, new Date("2020-06-01T00:00:00Z"));
    expect(then.confianza).toBe("cadena_invalida");
    expect(then.motivo).toBe('"SII Sandbox CA" was not yet valid at 2020-06-01T00:00:00.000Z (valid from 2025-01-01)');
  });

  it("refuses a taxpayer certificate whose CA signature was altered", async () => {
    const verdict = await verifyChain(alterSignature(der(SANDBOX_TAXPAYER_CERTS["22222222-2"].certPem)), sandboxStore, at);
    expect(verdict.confianza).toBe("cadena_invalida");
    expect(verdict.motivo).toBe('the signature of "SII Sandbox CA" on "Pedro Muñoz Rojas" does not verify');
  });

  it("calls the sandbox CA itself self-signed, even though it is in the store", async () => {
    const verdict = await verifyChain(der(SANDBOX_CA.cert), sandboxStore, at);
    expect(verdict.confianza).toBe("autofirmado");
    expect(verdict.cadena).toEqual(["SII Sandbox CA"]);
  });

  it("skips unreadable entries and keeps a certificate given twice once", async () => {
    const store = buildTrustStore([new Uint8Array([1, 2, 3]), der(SANDBOX_CA.cert), der(SANDBOX_CA.cert)]);
    expect(await trustStoreSize(store)).toBe(1);
    expect((await verifyChain(der(SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem), store, at)).confianza).toBe("cadena_valida");
  });

  it("waits for certificates that arrive later", async () => {
    const store = buildTrustStore([], Promise.resolve([der(SANDBOX_CA.cert)]));
    expect((await verifyChain(der(SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem), store, at)).confianza).toBe("cadena_valida");
  });

  it("says so when the signer's bytes are not a certificate", async () => {
    const verdict = await verifyChain(new Uint8Array([0x30, 0x00]), sandboxStore, at);
    expect(verdict.confianza).toBe("cadena_invalida");
    expect(verdict.cadena).toEqual([]);
  });
});

describe("real DTE signers (class-2 CAs that no public bundle holds)", () => {
  const cases = [
    { pem: ecertchile, signedAt: "2019-04-01", issuer: "E-CERTCHILE CA FIRMA ELECTRONICA SIMPLE" },
    { pem: ecertchile61, signedAt: "2019-04-01", issuer: "E-CERTCHILE CA FIRMA ELECTRONICA SIMPLE" },
    { pem: acepta, signedAt: "2019-04-01", issuer: "Acepta.com Autoridad Certificadora Clase 2 Persona Natural - G4" },
    { pem: esign, signedAt: "2019-04-01", issuer: "E-Sign Class 2 Firma Tributaria CA" },
  ];
  it.each(cases)("$issuer: issuer unknown, named", async ({ pem, signedAt, issuer }) => {
    const verdict = await verifyChain(der(pem), sandboxStore, new Date(signedAt));
    expect(verdict.confianza).toBe("emisor_desconocido");
    expect(verdict.cadena).toHaveLength(1);
    expect(verdict.motivo).toContain(`the issuer "${issuer}"`);
    expect(verdict.motivo).not.toContain("expired");
  });
});

describe("chains made in the test", () => {
  const keyId = (n: number) => new Uint8Array(20).fill(n);

  async function threeLevels(intermediateIsCa = true, kind: "rsa" | "ec" | "pss" = "rsa") {
    const newKey = { rsa: rsaKey, ec: ecKey, pss: pssKey }[kind];
    const root = await makeCertificate({ name: "Test Root", key: await newKey(), ca: true, keyId: keyId(1) });
    const intermediate = await makeCertificate({
      name: "Test Intermediate",
      key: await newKey(),
      issuer: root,
      ca: intermediateIsCa,
      keyId: keyId(2),
      issuerKeyId: keyId(1),
    });
    const leaf = await makeCertificate({ name: "Signer", key: await rsaKey(), issuer: intermediate, ca: false, issuerKeyId: keyId(2) });
    return { root, intermediate, leaf };
  }

  it("walks signer → intermediate → root (RSA, RSA-PSS and ECDSA issuers)", async () => {
    for (const kind of ["rsa", "pss", "ec"] as const) {
      const { root, intermediate, leaf } = await threeLevels(true, kind);
      const verdict = await verifyChain(leaf.der, buildTrustStore([root.der, intermediate.der]), at);
      expect(verdict).toEqual({ confianza: "cadena_valida", cadena: ["Signer", "Test Intermediate", "Test Root"], motivo: null });
    }
  });

  it("stops where the store lacks the intermediate's issuer", async () => {
    const { intermediate, leaf } = await threeLevels();
    const verdict = await verifyChain(leaf.der, buildTrustStore([intermediate.der]), at);
    expect(verdict.confianza).toBe("emisor_desconocido");
    expect(verdict.cadena).toEqual(["Signer", "Test Intermediate"]);
    expect(verdict.motivo).toContain('the issuer "Test Root" of "Test Intermediate"');
  });

  it("refuses an intermediate that is not a CA", async () => {
    const { root, intermediate, leaf } = await threeLevels(false);
    const verdict = await verifyChain(leaf.der, buildTrustStore([root.der, intermediate.der]), at);
    expect(verdict.confianza).toBe("cadena_invalida");
    expect(verdict.motivo).toContain('"Test Intermediate" is not a CA certificate');
  });

  it("refuses an intermediate expired at the signing time", async () => {
    const root = await makeCertificate({ name: "Test Root", key: await rsaKey(), ca: true });
    const old = await makeCertificate({ name: "Old CA", key: await rsaKey(), issuer: root, ca: true, notAfter: new Date("2025-01-01") });
    const leaf = await makeCertificate({ name: "Signer", key: await rsaKey(), issuer: old });
    const verdict = await verifyChain(leaf.der, buildTrustStore([root.der, old.der]), at);
    expect(verdict.confianza).toBe("cadena_invalida");
    expect(verdict.motivo).toContain('"Old CA" had expired');
  });

  it("calls a self-signed signer autofirmado, and one issued by an unknown CA emisor_desconocido", async () => {
    const self = await makeCertificate({ name: "Forger", key: await rsaKey() });
    expect(await verifyChain(self.der, buildTrustStore([self.der]), at)).toEqual({
      confianza: "autofirmado",
      cadena: ["Forger"],
      motivo: '"Forger" is self-signed: no CA vouches for it',
    });
    const unknownCa = await makeCertificate({ name: "Unknown CA", key: await rsaKey(), ca: true });
    const leaf = await makeCertificate({ name: "Signer", key: await rsaKey(), issuer: unknownCa });
    const verdict = await verifyChain(leaf.der, sandboxStore, at);
    expect(verdict.confianza).toBe("emisor_desconocido");
    expect(verdict.motivo).toContain('"Unknown CA"');
  });

  it("prefers the candidate whose key id matches, among CAs of the same name", async () => {
    const { root, intermediate, leaf } = await threeLevels();
    const impostor = await makeCertificate({ name: "Test Intermediate", key: await rsaKey(), issuer: root, ca: true, keyId: keyId(9) });
    const verdict = await verifyChain(leaf.der, buildTrustStore([root.der, impostor.der, intermediate.der]), at);
    expect(verdict.confianza).toBe("cadena_valida");
  });
});

describe("every CA is checked as a CA, anchors and the operator's intermediates included", () => {
  // One key for every certificate here: the walk goes by names and signatures, and fewer keys keep it quick.
  const key = rsaKey();
  it("refuses an intermediate whose keyUsage lacks keyCertSign", async () => {
    const root = await makeCertificate({ name: "Test Root", key: await key, ca: true, keyUsage: ["keyCertSign", "cRLSign"] });
    const intermediate = await makeCertificate({
      name: "Signing Only",
      key: await key,
      issuer: root,
      ca: true,
      keyUsage: ["digitalSignature"],
    });
    const leaf = await makeCertificate({ name: "Signer", key: await key, issuer: intermediate });
    const verdict = await verifyChain(leaf.der, buildTrustStore([root.der, intermediate.der]), at);
    expect(verdict).toMatchObject({
      confianza: "cadena_invalida",
      motivo: '"Signing Only" has a keyUsage without keyCertSign, so it cannot issue "Signer"',
    });
  });

  it("refuses a root whose keyUsage lacks keyCertSign, and one whose basicConstraints says it is no CA", async () => {
    for (const options of [{ ca: true, keyUsage: ["cRLSign" as const] }, { ca: false }]) {
      const root = await makeCertificate({ name: "Test Root", key: await key, ...options });
      const leaf = await makeCertificate({ name: "Signer", key: await key, issuer: root });
      expect((await verifyChain(leaf.der, buildTrustStore([root.der]), at)).confianza).toBe("cadena_invalida");
    }
    // A v1 root (no basicConstraints at all) is trusted as given.
    const v1 = await makeCertificate({ name: "Old Root", key: await key });
    const leaf = await makeCertificate({ name: "Signer", key: await key, issuer: v1 });
    expect((await verifyChain(leaf.der, buildTrustStore([v1.der]), at)).confianza).toBe("cadena_valida");
  });

  it("counts the intermediates below a CA against its pathLen", async () => {
    const make = async (rootPathLen: number) => {
      const root = await makeCertificate({ name: "Test Root", key: await key, ca: true, pathLen: rootPathLen });
      const intermediate = await makeCertificate({ name: "Test Intermediate", key: await key, issuer: root, ca: true, pathLen: 0 });
      const leaf = await makeCertificate({ name: "Signer", key: await key, issuer: intermediate });
      return verifyChain(leaf.der, buildTrustStore([root.der, intermediate.der]), at);
    };
    expect(await make(1)).toMatchObject({ confianza: "cadena_valida" });
    expect(await make(0)).toMatchObject({
      confianza: "cadena_invalida",
      motivo: '"Test Root" allows 0 intermediate CAs below it (pathLen), and the chain has 1',
    });
  });
});

describe("validity dates", () => {
  it("reads a GeneralizedTime year 0000–0099 as given, not as 1900–1999", async () => {
    const ancient = await makeCertificate({
      name: "Signer",
      key: await rsaKey(),
      notBefore: new Date("0001-01-01T00:00:00Z"),
      notAfter: new Date("0099-12-31T00:00:00Z"),
    });
    const links = certificateLinks(ancient.der);
    expect([links?.notBefore.toISOString(), links?.notAfter.toISOString()]).toEqual([
      "0001-01-01T00:00:00.000Z",
      "0099-12-31T00:00:00.000Z",
    ]);
  });
});

describe("bounded work", () => {
  it("checks a bounded number of signatures however many CAs share a name", async () => {
    const key = await rsaKey();
    // Sixty CAs named "A" issued by "B" and sixty "B" issued by "A", all with one key, so every
    // signature verifies and no anchor ends the walk: without its budget the walk makes ~22 000 checks.
    const named = (name: string): TestCertificate => ({ name, key, der: new Uint8Array(0) });
    const loop: Uint8Array[] = [];
    for (let serial = 1; serial <= 60; serial++) {
      loop.push((await makeCertificate({ name: "A", key, issuer: named("B"), ca: true, serial })).der);
      loop.push((await makeCertificate({ name: "B", key, issuer: named("A"), ca: true, serial })).der);
    }
    const leaf = await makeCertificate({ name: "Signer", key: await rsaKey(), issuer: named("A") });
    const verify = vi.spyOn(crypto.subtle, "verify");
    try {
      const verdict = await verifyChain(leaf.der, buildTrustStore(loop), at);
      expect(verdict.confianza).toBe("cadena_invalida");
      expect(verify.mock.calls.length).toBeLessThanOrEqual(16);
    } finally {
      verify.mockRestore();
    }
  });
});
