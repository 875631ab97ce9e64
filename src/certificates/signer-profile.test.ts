// The rules a DTE signer's certificate is judged by (signer-profile.ts), on certificates made in the test,
// on the sandbox's and on real DTE signers' (which must keep passing: 1024-bit ones with a warning).
import { describe, expect, it } from "vitest";
import esign from "../../test/fixtures/real-documents/sii-crypto/DTE--60910000-1--33--2336600-cert.pem?raw";
import ecertchile from "../../test/fixtures/real-documents/sii-crypto/DTE--76354771-K--33--170-cert.pem?raw";
import acepta from "../../test/fixtures/real-documents/sii-crypto/DTE--76399752-9--33--25568-cert.pem?raw";
import ecertchile61 from "../../test/fixtures/real-documents/sii-crypto/DTE--96670340-7--61--110616-cert.pem?raw";
import { type CertificateOptions, makeCertificate, rsaKey } from "../../test/support/certificates.ts";
import { EXPIRED_CERT, SANDBOX_CA, SANDBOX_TAXPAYER_CERTS } from "../sandbox/credentials/index.ts";
import { readCertificate } from "./certificate.ts";
import { readDerBlocks } from "./pem.ts";
import { signerProfile } from "./signer-profile.ts";

const der = (pem: string) => readDerBlocks(pem)?.[0]?.der as Uint8Array<ArrayBuffer>;
const sharedKey = rsaKey();
async function leaf(options: Partial<CertificateOptions> = {}): Promise<Uint8Array<ArrayBuffer>> {
  const base = { name: "Firmante", key: await sharedKey, ca: false, keyUsage: ["digitalSignature" as const], ruts: ["11111111-1"] };
  return (await makeCertificate({ ...base, ...options })).der;
}

describe("certificates that may sign", () => {
  it("the sandbox's taxpayers' and the real 2048-bit signers' pass with nothing to say", () => {
    for (const pem of [
      SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem,
      SANDBOX_TAXPAYER_CERTS["22222222-2"].certPem,
      EXPIRED_CERT.certPem,
      esign,
      acepta,
    ])
      expect(signerProfile(der(pem))).toEqual({ refusals: [], warnings: [] });
  });

  it("the real 1024-bit signers pass with a warning", () => {
    for (const pem of [ecertchile, ecertchile61]) {
      const { refusals, warnings } = signerProfile(der(pem));
      expect(refusals).toEqual([]);
      expect(warnings).toEqual([expect.stringMatching(/RSA key is 1024 bits/)]);
    }
  });

  it("nonRepudiation alone, no keyUsage at all, and the signing purposes of extendedKeyUsage pass", async () => {
    expect(signerProfile(await leaf({ keyUsage: ["nonRepudiation"] })).refusals).toEqual([]);
    expect(signerProfile(await leaf({ keyUsage: undefined })).refusals).toEqual([]);
    for (const purpose of ["2.5.29.37.0", "1.3.6.1.5.5.7.3.2", "1.3.6.1.5.5.7.3.4", "1.3.6.1.5.5.7.3.36"])
      expect(signerProfile(await leaf({ extKeyUsage: { purposes: [purpose], critical: true } })).refusals).toEqual([]);
  });
});

describe("certificates that may not", () => {
  it.each([
    ["the sandbox CA", async () => der(SANDBOX_CA.cert), /is a CA certificate/],
    ["keyEncipherment only", () => leaf({ keyUsage: ["keyEncipherment"] }), /keyUsage \(keyEncipherment\) that allows neither/],
    ["keyCertSign and cRLSign only", () => leaf({ keyUsage: ["keyCertSign", "cRLSign"] }), /keyUsage \(keyCertSign, cRLSign\)/],
    [
      "serverAuth only",
      () => leaf({ extKeyUsage: { purposes: ["1.3.6.1.5.5.7.3.1"], critical: true } }),
      /extendedKeyUsage \(serverAuth\)/,
    ],
    ["codeSigning only", () => leaf({ extKeyUsage: { purposes: ["1.3.6.1.5.5.7.3.3"] } }), /extendedKeyUsage \(codeSigning\)/],
    ["an unknown critical extension", () => leaf({ criticalExtension: "1.2.3.4" }), /critical extension 1\.2\.3\.4/],
    ["a CA", () => leaf({ ca: true }), /is a CA certificate/],
    ["no RUT", () => leaf({ ruts: [] }), /names no RUT/],
    ["two RUTs", () => leaf({ ruts: ["11111111-1", "22222222-2"] }), /more than one RUT \(11111111-1, 22222222-2\)/],
    ["a serialNumber naming another RUT", () => leaf({ serialNumber: "22222222-2" }), /more than one RUT/],
  ])("%s", async (_, make, reason) => {
    expect(signerProfile(await make()).refusals).toContainEqual(expect.stringMatching(reason));
  });

  it("a zero-padded serialNumber of the same RUT is one RUT", async () => {
    const same = await leaf({ serialNumber: "011111111-1" });
    expect(signerProfile(same).refusals).toEqual([]);
    const read = readCertificate(same);
    expect(read.ok && read.certificate.rut).toBe("11111111-1");
  });
});
