// PKCS#12 files beyond the everyday ones: how many entries one file may carry.
import forge from "node-forge";
import { describe, expect, it } from "vitest";
import { SANDBOX_CA, SANDBOX_TAXPAYER_CERTS } from "../sandbox/credentials/index.ts";
import { CredentialError } from "./credential-error.ts";
import { MAX_PFX_BAGS, readPfx } from "./pkcs12.ts";

const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];

/** A PFX with Juana's key and `count` certificates, written by node-forge (3DES, SHA-1 MAC). */
function pfxWithCertificates(count: number): string {
  const key = forge.pki.privateKeyFromPem(juana.keyPem);
  const certificates = [juana.certPem, ...Array.from({ length: count - 1 }, () => SANDBOX_CA.cert)].map((pem) =>
    forge.pki.certificateFromPem(pem),
  );
  const asn1 = forge.pkcs12.toPkcs12Asn1(key, certificates, "sandbox", { algorithm: "3des", count: 1 });
  return forge.util.encode64(forge.asn1.toDer(asn1).getBytes());
}

describe("entries in one PFX", () => {
  it(`reads a key with a long chain (${MAX_PFX_BAGS - 1} certificates)`, async () => {
    const contents = await readPfx(pfxWithCertificates(MAX_PFX_BAGS - 1), "sandbox");
    expect(contents.keys).toHaveLength(1);
    expect(contents.certificates).toHaveLength(MAX_PFX_BAGS - 1);
  });

  it("refuses a file of hundreds of certificates before reading them all", async () => {
    const pfx = pfxWithCertificates(300);
    const started = performance.now();
    const error = await readPfx(pfx, "sandbox").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialError);
    expect((error as CredentialError).message).toBe(
      `auth.cert.pfx-data holds more than ${MAX_PFX_BAGS} keys and certificates; a certificate file holds a few`,
    );
    // The cap stops before parsing the certificates past the 64th.
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
