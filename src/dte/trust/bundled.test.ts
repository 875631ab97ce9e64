// The bundled certificates unpack on every runtime (DecompressionStream in workerd and Node); that they
// are the fixtures byte for byte is checked in test/node/trust-store.test.ts.
import { describe, expect, it } from "vitest";
import { certificateLinks } from "../../certificates/certificate.ts";
import { bundledCertificates, splitDer } from "./bundled.ts";
import { BUNDLED_CERTIFICATE_COUNT } from "./bundled-data.ts";

describe("the bundled certificates", () => {
  it("unpack into readable certificates, as many as the generator wrote", async () => {
    const certificates = await bundledCertificates();
    expect(certificates).toHaveLength(BUNDLED_CERTIFICATE_COUNT);
    expect(certificates.every((der) => certificateLinks(der) !== null)).toBe(true);
  });

  it("refuses a truncated concatenation instead of inventing a certificate", () => {
    expect(splitDer(Uint8Array.of(0x30, 0x03, 1, 2, 3, 0x30, 0x02, 1, 2))).toHaveLength(2);
    expect(() => splitDer(Uint8Array.of(0x30, 0x82, 0x01, 0x00, 1, 2))).toThrow(/truncated/);
  });
});
