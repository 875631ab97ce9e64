// Taxpayer certificate credentials: every PEM and PFX form OpenSSL produces, the sandbox PKI's two
// taxpayers, each failure with its own message (never echoing secrets), and the per-isolate cache.
import forge from "node-forge";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CredentialError } from "../../src/certificates/credential-error.ts";
import {
  type CertInput,
  clearCredentialCache,
  parseCertificateCredential,
  type SigningCredential,
} from "../../src/certificates/credentials.ts";
import { base64ToBytes, bytesToBase64 } from "../../src/lib/encoding.ts";
import { fromCredentialError } from "../../src/platform/failure.ts";
import { EXPIRED_CERT, SANDBOX_CA, SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";

const NOW = new Date("2026-06-01T12:00:00Z");
const PASSPHRASE = "sandbox";
const WRONG = "not-the-passphrase-9f3k";
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const pedro = SANDBOX_TAXPAYER_CERTS["22222222-2"];

const TAXPAYERS = [
  { rut: "11111111-1", subjectName: "Juana Pérez Soto", fixtures: juana },
  { rut: "22222222-2", subjectName: "Pedro Muñoz Rojas", fixtures: pedro },
] as const;

type Fixtures = (typeof TAXPAYERS)[number]["fixtures"];
const FORMS: { name: string; input: (f: Fixtures) => CertInput; chain: number }[] = [
  { name: "PEM, PKCS#8 key", input: (f) => ({ "cert-data": f.certPem, "pkey-data": f.keyPem }), chain: 0 },
  { name: "PEM, PKCS#1 key", input: (f) => ({ "cert-data": f.certPem, "pkey-data": f.pkcs1KeyPem }), chain: 0 },
  {
    name: "PEM, encrypted PKCS#8 key (PBES2/AES-256)",
    input: (f) => ({ "cert-data": f.certPem, "pkey-data": f.encryptedKeyPem, passphrase: f.passphrase }),
    chain: 0,
  },
  { name: "legacy PFX (RC2-40/3DES, SHA-1 MAC)", input: (f) => ({ "pfx-data": f.legacyPfxBase64, passphrase: f.passphrase }), chain: 1 },
  {
    name: "modern PFX (PBES2/AES-256, SHA-256 MAC)",
    input: (f) => ({ "pfx-data": f.modernPfxBase64, passphrase: f.passphrase }),
    chain: 1,
  },
];

function pemBody(pem: string): string {
  return pem.replace(/-----[A-Z ]+-----|\s/g, "");
}

function pemToDer(pem: string): Uint8Array<ArrayBuffer> {
  return base64ToBytes(pemBody(pem));
}

function toPem(label: string, der: Uint8Array): string {
  return `-----BEGIN ${label}-----\n${bytesToBase64(der).replace(/.{64}/g, "$&\n")}\n-----END ${label}-----\n`;
}

/** The certificate's own public key, read by forge (the code under test never exposes an SPKI). */
async function certificatePublicKey(certPem: string): Promise<CryptoKey> {
  const spki = forge.asn1.toDer(forge.pki.publicKeyToAsn1(forge.pki.certificateFromPem(certPem).publicKey)).getBytes();
  const der = Uint8Array.from(spki, (c) => c.charCodeAt(0));
  return crypto.subtle.importKey("spki", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" }, true, ["verify"]);
}

function base64UrlToBase64(value: string): string {
  const base64 = value.replaceAll("-", "+").replaceAll("_", "/");
  return base64 + "=".repeat((4 - (base64.length % 4)) % 4);
}

const SECRETS = [PASSPHRASE, WRONG, "-----", pemBody(juana.keyPem).slice(0, 40), pemBody(juana.certPem).slice(0, 40)];

/** Runs a parse that must fail with AUTH_ERROR; checks the field it blames and that no secret leaks. */
async function authError(input: unknown, path: string, now = NOW): Promise<string> {
  const error = await parseCertificateCredential(input as CertInput, now).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof CredentialError)) throw new Error(`expected a CredentialError, got ${String(error)}`);
  const api = fromCredentialError(error);
  expect(api.status).toBe(400);
  expect(api.code).toBe("AUTH_ERROR");
  expect(api.init.errors).toEqual([{ path, location: "body", message: error.message }]);
  for (const secret of SECRETS) {
    expect(error.message).not.toContain(secret);
  }
  return error.message;
}

beforeEach(() => clearCredentialCache());
afterEach(() => vi.restoreAllMocks());

describe.each(TAXPAYERS)("$rut ($subjectName)", ({ rut, subjectName, fixtures }) => {
  it.each(FORMS)("reads $name", async ({ input, chain }) => {
    const credential = await parseCertificateCredential(input(fixtures), NOW);
    expect(credential.rut).toBe(rut);
    expect(credential.subjectName).toBe(subjectName);
    expect(credential.issuerName).toBe("SII Sandbox CA");
    expect(credential.notBefore.toISOString()).toBe("2025-01-01T00:00:00.000Z");
    expect(credential.notAfter.toISOString()).toBe("2045-01-01T00:00:00.000Z");

    // The signer's certificate, byte for byte, whatever the container (PFX bags are re-encoded by forge).
    const der = pemToDer(fixtures.certPem);
    expect(credential.certificateDer).toEqual(der);
    expect(credential.certificateBase64).toBe(pemBody(fixtures.certPem));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", der));
    expect(credential.fingerprint).toBe(Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""));
    expect(credential.chainDer).toHaveLength(chain);
    if (chain) expect(credential.chainDer[0]).toEqual(pemToDer(SANDBOX_CA.cert));
    expect(pemBody(credential.certificatePem)).toBe(pemBody(fixtures.certPem) + (chain ? pemBody(SANDBOX_CA.cert) : ""));
    expect(pemBody(credential.privateKeyPkcs8Pem)).toBe(pemBody(fixtures.keyPem));
    expect(credential.privateKeyPkcs8Pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);

    // The key signs RSA-SHA1, and the certificate's public key verifies it.
    expect(credential.privateKey.extractable).toBe(false);
    expect(credential.privateKey.usages).toEqual(["sign"]);
    expect(credential.privateKey.algorithm).toMatchObject({ name: "RSASSA-PKCS1-v1_5", hash: { name: "SHA-1" } });
    const data = new TextEncoder().encode("<SignedInfo>semilla</SignedInfo>");
    const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", credential.privateKey, data);
    const publicKey = await certificatePublicKey(fixtures.certPem);
    expect(await crypto.subtle.verify("RSASSA-PKCS1-v1_5", publicKey, signature, data)).toBe(true);

    // RSAKeyValue: the certificate's modulus and exponent, unsigned, no leading zero byte.
    const jwk = (await crypto.subtle.exportKey("jwk", publicKey)) as JsonWebKey;
    expect(credential.modulusBase64).toBe(base64UrlToBase64(jwk.n ?? ""));
    expect(credential.exponentBase64).toBe("AQAB");
    expect(base64ToBytes(credential.modulusBase64)).toHaveLength(256);
  });
});

describe("tolerant input", () => {
  const expectJuana = (credential: SigningCredential) => {
    expect(credential.rut).toBe("11111111-1");
    expect(credential.certificateBase64).toBe(pemBody(juana.certPem));
  };

  it("picks the signer out of a chain in any order; the rest is the chain", async () => {
    const credential = await parseCertificateCredential({ "cert-data": SANDBOX_CA.cert + juana.certPem, "pkey-data": juana.keyPem }, NOW);
    expectJuana(credential);
    expect(credential.chainDer).toEqual([pemToDer(SANDBOX_CA.cert)]);
  });

  it("accepts PEM without line breaks, with CRLF, with JSON-escaped \\n, or bare base64 DER", async () => {
    const oneLine = (pem: string) => pem.replace(/\n/g, "");
    const crlf = (pem: string) => pem.replace(/\n/g, "\r\n");
    const escaped = (pem: string) => pem.replace(/\n/g, "\\n");
    for (const shape of [oneLine, crlf, escaped, pemBody]) {
      expectJuana(await parseCertificateCredential({ "cert-data": shape(juana.certPem), "pkey-data": shape(juana.keyPem) }, NOW));
    }
    expectJuana(await parseCertificateCredential({ "cert-data": juana.certPem, "pkey-data": pemBody(juana.pkcs1KeyPem) }, NOW));
  });

  it("accepts PFX base64 wrapped over lines", async () => {
    const wrapped = juana.modernPfxBase64.replace(/.{76}/g, "$&\r\n");
    expectJuana(await parseCertificateCredential({ "pfx-data": `\n${wrapped}\n`, passphrase: PASSPHRASE }, NOW));
  });

  it("decrypts PKCS#8 under PKCS#12 PBE (3DES) and old OpenSSL encrypted PKCS#1", async () => {
    const key = forge.pki.privateKeyFromPem(juana.keyPem);
    const pbe3des = forge.pki.encryptedPrivateKeyToPem(
      forge.pki.encryptPrivateKeyInfo(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(key)), PASSPHRASE, { algorithm: "3des" }),
    );
    expect(forge.pki.encryptedPrivateKeyFromPem(pbe3des)).toBeTruthy();
    const legacy = forge.pki.encryptRsaPrivateKey(key, PASSPHRASE, { legacy: true, algorithm: "aes256" });
    expect(legacy).toContain("Proc-Type: 4,ENCRYPTED");
    for (const pkey of [pbe3des, legacy]) {
      expectJuana(await parseCertificateCredential({ "cert-data": juana.certPem, "pkey-data": pkey, passphrase: PASSPHRASE }, NOW));
      expect(await authError({ "cert-data": juana.certPem, "pkey-data": pkey, passphrase: WRONG }, "auth.cert.passphrase")).toMatch(
        /wrong passphrase/,
      );
    }
  });

  it("reads the RUT from the subject serialNumber when there is no SAN, dropping leading zeros", async () => {
    const key = forge.pki.privateKeyFromPem(juana.keyPem);
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
    cert.serialNumber = "01";
    cert.validity.notBefore = new Date("2025-01-01T00:00:00Z");
    cert.validity.notAfter = new Date("2030-01-01T00:00:00Z");
    cert.setSubject([
      { shortName: "CN", value: "Titular Antiguo" },
      { type: "2.5.4.5", value: "07880442-4" },
    ]);
    cert.setIssuer([{ shortName: "CN", value: "Otra CA" }]);
    cert.sign(key, forge.md.sha256.create());
    const credential = await parseCertificateCredential({ "cert-data": forge.pki.certificateToPem(cert), "pkey-data": juana.keyPem }, NOW);
    expect(credential.rut).toBe("7880442-4");
    expect(credential.issuerName).toBe("Otra CA");
  });
});

describe("errors", () => {
  it("wrong passphrase: legacy PFX, modern PFX, encrypted PEM", async () => {
    for (const pfx of [juana.legacyPfxBase64, pedro.modernPfxBase64]) {
      expect(await authError({ "pfx-data": pfx, passphrase: WRONG }, "auth.cert.passphrase")).toMatch(/^wrong passphrase: .*MAC/);
    }
    const pem = { "cert-data": juana.certPem, "pkey-data": juana.encryptedKeyPem, passphrase: WRONG };
    expect(await authError(pem, "auth.cert.passphrase")).toMatch(/^wrong passphrase: the encrypted private key/);
  });

  it("missing passphrase: encrypted PEM, PFX", async () => {
    expect(await authError({ "cert-data": juana.certPem, "pkey-data": juana.encryptedKeyPem }, "auth.cert.passphrase")).toMatch(
      /encrypted private key: auth\.cert\.passphrase is required/,
    );
    expect(await authError({ "pfx-data": juana.legacyPfxBase64 }, "auth.cert.passphrase")).toMatch(/passphrase is required/);
  });

  it("key of one taxpayer with the certificate of another", async () => {
    expect(await authError({ "cert-data": pedro.certPem, "pkey-data": juana.keyPem }, "auth.cert.pkey-data")).toMatch(
      /does not match the certificate/,
    );
  });

  it("garbage in cert-data, or something that is not a certificate", async () => {
    expect(await authError({ "cert-data": "hello, I am a certificate", "pkey-data": juana.keyPem }, "auth.cert.cert-data")).toMatch(
      /cert-data is not a PEM certificate, nor base64 DER/,
    );
    expect(await authError({ "cert-data": juana.keyPem, "pkey-data": juana.keyPem }, "auth.cert.cert-data")).toMatch(
      /holds no certificate \(found: PRIVATE KEY\)/,
    );
    expect(await authError({ "cert-data": pemBody(juana.keyPem), "pkey-data": juana.keyPem }, "auth.cert.cert-data")).toMatch(
      /not an X\.509 certificate/,
    );
    expect(
      await authError({ "cert-data": juana.certPem, "pkey-data": "-----BEGIN PRIVATE KEY-----\n%%%\n" }, "auth.cert.pkey-data"),
    ).toMatch(/pkey-data is not a PEM private key/);
    expect(await authError({ "cert-data": juana.certPem, "pkey-data": juana.certPem }, "auth.cert.pkey-data")).toMatch(
      /holds no private key \(found: CERTIFICATE\)/,
    );
  });

  it("garbage in pfx-data", async () => {
    expect(await authError({ "pfx-data": "this is not a pfx!", passphrase: PASSPHRASE }, "auth.cert.pfx-data")).toMatch(
      /pfx-data is not base64/,
    );
    expect(await authError({ "pfx-data": pemBody(juana.certPem), passphrase: PASSPHRASE }, "auth.cert.pfx-data")).toMatch(
      /pfx-data is not a PKCS#12/,
    );
    expect(await authError({ "pfx-data": "AAAA", passphrase: PASSPHRASE }, "auth.cert.pfx-data")).toMatch(/pfx-data is not a PKCS#12/);
  });

  it("a PFX without a key, or without the key's certificate", async () => {
    const toBase64 = (asn: forge.asn1.Asn1) => forge.util.encode64(forge.asn1.toDer(asn).getBytes());
    const juanaCert = forge.pki.certificateFromPem(juana.certPem);
    const pedroKey = forge.pki.privateKeyFromPem(pedro.keyPem);
    const certsOnly = toBase64(forge.pkcs12.toPkcs12Asn1(null, [juanaCert], PASSPHRASE, { algorithm: "3des" }));
    expect(await authError({ "pfx-data": certsOnly, passphrase: PASSPHRASE }, "auth.cert.pfx-data")).toMatch(/holds no private key/);
    const mismatched = toBase64(forge.pkcs12.toPkcs12Asn1(pedroKey, [juanaCert], PASSPHRASE, { algorithm: "aes256" }));
    expect(await authError({ "pfx-data": mismatched, passphrase: PASSPHRASE }, "auth.cert.pfx-data")).toMatch(
      /holds no certificate matching its private key/,
    );
  });

  it("an EC key is not RSA", async () => {
    const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const pkcs8 = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
    expect(await authError({ "cert-data": juana.certPem, "pkey-data": toPem("PRIVATE KEY", pkcs8) }, "auth.cert.pkey-data")).toMatch(
      /is EC, not RSA/,
    );
  });

  it("a certificate without a RUT", async () => {
    const key = forge.pki.privateKeyFromPem(juana.keyPem);
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
    cert.serialNumber = "02";
    cert.validity.notBefore = new Date("2025-01-01T00:00:00Z");
    cert.validity.notAfter = new Date("2030-01-01T00:00:00Z");
    cert.setSubject([{ shortName: "CN", value: "Nadie" }]);
    cert.setIssuer([{ shortName: "CN", value: "Nadie" }]);
    cert.sign(key, forge.md.sha256.create());
    expect(await authError({ "cert-data": forge.pki.certificateToPem(cert), "pkey-data": juana.keyPem }, "auth.cert.cert-data")).toMatch(
      /carries no RUT/,
    );
  });

  it("an expired certificate, and one not valid yet (dates from the now argument)", async () => {
    const expired = { "cert-data": EXPIRED_CERT.certPem, "pkey-data": EXPIRED_CERT.keyPem };
    expect(await authError(expired, "auth.cert.cert-data")).toBe("the certificate of 11111111-1 expired on 2021-01-01T00:00:00Z");
    expect((await parseCertificateCredential(expired, new Date("2020-06-01T00:00:00Z"))).rut).toBe("11111111-1");

    const early = new Date("2024-12-31T23:59:59Z");
    expect(await authError({ "pfx-data": juana.modernPfxBase64, passphrase: PASSPHRASE }, "auth.cert.pfx-data", early)).toBe(
      "the certificate of 11111111-1 is not valid yet: its validity starts on 2025-01-01T00:00:00Z",
    );
  });

  it("malformed auth.cert objects", async () => {
    expect(await authError({}, "auth.cert")).toMatch(/needs cert-data and pkey-data/);
    expect(await authError({ "cert-data": juana.certPem }, "auth.cert.pkey-data")).toMatch(/pkey-data is required/);
    expect(await authError({ "pfx-data": 42, passphrase: PASSPHRASE }, "auth.cert.pfx-data")).toMatch(/must be a string/);
  });
});

describe("the apigateway.cl SDKs' names for a PFX (file-data + file-pass)", () => {
  it("reads the same credential as pfx-data + passphrase", async () => {
    const aliased = await parseCertificateCredential({ "file-data": pedro.modernPfxBase64, "file-pass": PASSPHRASE }, NOW);
    clearCredentialCache();
    const plain = await parseCertificateCredential({ "pfx-data": pedro.modernPfxBase64, passphrase: PASSPHRASE }, NOW);
    expect([aliased.rut, aliased.fingerprint, aliased.chainDer.length]).toEqual([plain.rut, plain.fingerprint, plain.chainDer.length]);
  });

  it("refuses a field given under both names, and a wrong file-pass like a wrong passphrase", async () => {
    const both = { "pfx-data": pedro.modernPfxBase64, "file-data": pedro.modernPfxBase64, passphrase: PASSPHRASE };
    expect(await authError(both, "auth.cert.pfx-data")).toMatch(/file-data is auth.cert.pfx-data under another name/);
    const twice = { "file-data": pedro.modernPfxBase64, "file-pass": PASSPHRASE, passphrase: PASSPHRASE };
    expect(await authError(twice, "auth.cert.passphrase")).toMatch(/file-pass is auth.cert.passphrase under another name/);
    expect(await authError({ "file-data": pedro.modernPfxBase64, "file-pass": WRONG }, "auth.cert.passphrase")).toMatch(/wrong passphrase/);
    expect(await authError({ "file-data": pedro.modernPfxBase64, "file-pass": 7 }, "auth.cert.passphrase")).toMatch(
      /file-pass must be a string/,
    );
  });
});

/** `asn` (changed in place) with every INTEGER equal to `from` set to `to`: iteration counts, not salts (OCTET STRINGs). */
function withCount(asn: forge.asn1.Asn1, from: number, to: number): forge.asn1.Asn1 {
  const fromBytes = forge.asn1.integerToDer(from).getBytes();
  const toBytes = forge.asn1.integerToDer(to).getBytes();
  let replaced = 0;
  const walk = (node: forge.asn1.Asn1) => {
    if (node.tagClass === forge.asn1.Class.UNIVERSAL && node.type === forge.asn1.Type.INTEGER && node.value === fromBytes) {
      node.value = toBytes;
      replaced++;
    } else if (Array.isArray(node.value)) node.value.forEach(walk);
    else if (node.type === forge.asn1.Type.OCTETSTRING && typeof node.value === "string" && node.value.startsWith("0")) {
      // A PFX's safes are DER inside OCTET STRINGs.
      const before = replaced;
      try {
        const inner = forge.asn1.fromDer(node.value);
        walk(inner);
        if (replaced > before) node.value = forge.asn1.toDer(inner).getBytes();
      } catch {
        // not DER: data
      }
    }
  };
  walk(asn);
  expect(replaced).toBeGreaterThan(0);
  return asn;
}

describe("key-derivation limits", () => {
  const expectJuana = (credential: SigningCredential) => expect(credential.rut).toBe("11111111-1");
  const key = forge.pki.privateKeyFromPem(juana.keyPem);
  const info = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(key));
  const encryptedPem = (algorithm: "aes256" | "3des", count: number, patched: number) =>
    forge.pki.encryptedPrivateKeyToPem(withCount(forge.pki.encryptPrivateKeyInfo(info, PASSPHRASE, { algorithm, count }), count, patched));
  const pfxBase64 = (options: Record<string, unknown>, count: number, patched: number) =>
    forge.util.encode64(
      forge.asn1
        .toDer(
          withCount(
            forge.pkcs12.toPkcs12Asn1(key, [forge.pki.certificateFromPem(juana.certPem)], PASSPHRASE, { count, ...options }),
            count,
            patched,
          ),
        )
        .getBytes(),
    );

  /** Refused with the limit named, before any derivation: well under the ~16 s two million iterations take. */
  async function refused(input: unknown, path: string): Promise<void> {
    // How long it holds the event loop is measured against a live server (bench/stall.ts).
    expect(await authError(input, path)).toMatch(/at most 100000 iterations/);
  }

  it("refuses an encrypted PKCS#8 key asking for 2 000 000 iterations (PBES2 and PKCS#12 PBE)", async () => {
    for (const algorithm of ["aes256", "3des"] as const) {
      await refused(
        { "cert-data": juana.certPem, "pkey-data": encryptedPem(algorithm, 2049, 2_000_000), passphrase: PASSPHRASE },
        "auth.cert.pkey-data",
      );
    }
  });

  it("refuses a PFX asking for 2 000 000 iterations, before its MAC is derived", async () => {
    await refused({ "pfx-data": pfxBase64({ algorithm: "3des" }, 2049, 2_000_000), passphrase: PASSPHRASE }, "auth.cert.pfx-data");
  });

  it("refuses a PFX without MAC whose encrypted parts ask for 2^31-1 iterations (PKCS#12 PBE and PBES2)", async () => {
    for (const algorithm of ["3des", "aes256"]) {
      const pfx = pfxBase64({ algorithm, useMac: false }, 2049, 2 ** 31 - 1);
      await refused({ "pfx-data": pfx, passphrase: PASSPHRASE }, "auth.cert.pfx-data");
    }
  });

  it("counts every derivation of a credential: a 3DES key at 60 000 derives its key and IV, 120 000 in all", async () => {
    await refused(
      { "cert-data": juana.certPem, "pkey-data": encryptedPem("3des", 2049, 60_000), passphrase: PASSPHRASE },
      "auth.cert.pkey-data",
    );
  });

  it("still opens what real tools write (the sandbox's 2048-iteration files) after a refusal", async () => {
    await refused({ "pfx-data": pfxBase64({ algorithm: "3des" }, 2049, 2_000_000), passphrase: PASSPHRASE }, "auth.cert.pfx-data");
    expectJuana(await parseCertificateCredential({ "pfx-data": juana.legacyPfxBase64, passphrase: PASSPHRASE }, NOW));
    const pem = { "cert-data": juana.certPem, "pkey-data": encryptedPem("3des", 2049, 2049), passphrase: PASSPHRASE };
    expectJuana(await parseCertificateCredential(pem, NOW));
  });
});

describe("PEM read in linear time", () => {
  // How long it takes is the bench's (bench/stall.ts, "cert-data of 15 000 BEGIN lines"): this pins the answer.
  it("refuses cert-data of 40 000 BEGIN lines without END as no PEM certificate (it took 9 s)", async () => {
    const input = { "cert-data": "-----BEGIN A-----".repeat(40_000), "pkey-data": juana.keyPem };
    expect(await authError(input, "auth.cert.cert-data")).toMatch(/not a PEM certificate/);
    const distinct = {
      "cert-data": Array.from({ length: 40_000 }, (_, i) => `-----BEGIN A${i}-----`).join("\n"),
      "pkey-data": juana.keyPem,
    };
    expect(await authError(distinct, "auth.cert.cert-data")).toMatch(/not a PEM certificate/);
  });

  it("refuses cert-data of hundreds of certificates before parsing them", async () => {
    const many = { "cert-data": juana.certPem + SANDBOX_CA.cert.repeat(300), "pkey-data": juana.keyPem };
    expect(await authError(many, "auth.cert.cert-data")).toBe(
      "auth.cert.cert-data holds more than 64 certificates; a certificate and its chain are a few",
    );
    const long = { "cert-data": juana.certPem + SANDBOX_CA.cert.repeat(63), "pkey-data": juana.keyPem };
    expect((await parseCertificateCredential(long, NOW)).chainDer).toHaveLength(63);
  });

  it("still pairs each BEGIN with the first END of its own label", async () => {
    const noise = "-----BEGIN X-----\n-----END Y-----\n";
    const credential = await parseCertificateCredential({ "cert-data": noise + juana.certPem, "pkey-data": juana.keyPem }, NOW);
    expect(credential.rut).toBe("11111111-1");
    const twoCerts = await parseCertificateCredential({ "cert-data": SANDBOX_CA.cert + juana.certPem, "pkey-data": juana.keyPem }, NOW);
    expect(twoCerts.chainDer).toHaveLength(1);
  });
});

describe("cache", () => {
  const pfx = { "pfx-data": juana.legacyPfxBase64, passphrase: PASSPHRASE };

  it("parses a PFX once per isolate and returns the same credential", async () => {
    const first = await parseCertificateCredential(pfx, NOW);
    const second = await parseCertificateCredential({ ...pfx }, NOW);
    expect(second).toBe(first);
    // Concurrent first uses share one parse too; a cleared cache parses again.
    clearCredentialCache();
    const [a, b] = await Promise.all([parseCertificateCredential(pfx, NOW), parseCertificateCredential(pfx, NOW)]);
    expect(a).toBe(b);
    expect(a).not.toBe(first);
    expect(Object.isFrozen(a)).toBe(true);
  });

  it("still checks validity against now on a cached credential", async () => {
    await parseCertificateCredential(pfx, NOW);
    expect(await authError(pfx, "auth.cert.pfx-data", new Date("2045-01-02T00:00:00Z"))).toMatch(/expired on 2045-01-01/);
  });

  it("does not keep failures, and keys entries by the passphrase too", async () => {
    const failure = () => parseCertificateCredential({ ...pfx, passphrase: WRONG }, NOW).catch((error: unknown) => error);
    const once = await failure();
    expect(once).toBeInstanceOf(CredentialError);
    expect(await failure()).not.toBe(once); // parsed (and refused) again, not a kept rejection
    await authError({ ...pfx, passphrase: WRONG }, "auth.cert.passphrase");
    expect((await parseCertificateCredential(pfx, NOW)).rut).toBe("11111111-1");
    // A cached credential does not open for another passphrase.
    expect(await authError({ ...pfx, passphrase: WRONG }, "auth.cert.passphrase")).toMatch(/wrong passphrase/);
  });

  it("holds at most 100 entries, dropping the least recently used", async () => {
    const variant = (i: number): CertInput => ({ "cert-data": juana.certPem + " ".repeat(i), "pkey-data": juana.keyPem });
    const first = await parseCertificateCredential(variant(0), NOW);
    const second = await parseCertificateCredential(variant(1), NOW);
    for (let i = 2; i < 100; i++) await parseCertificateCredential(variant(i), NOW);
    expect(await parseCertificateCredential(variant(0), NOW)).toBe(first); // touched: now the newest
    await parseCertificateCredential(variant(100), NOW); // 101st entry evicts the oldest, variant(1)
    expect(await parseCertificateCredential(variant(0), NOW)).toBe(first);
    expect(await parseCertificateCredential(variant(1), NOW)).not.toBe(second);
  });
});
