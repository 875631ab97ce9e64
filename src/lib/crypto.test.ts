// Signatures made through node:crypto are the bytes WebCrypto makes with the same key (RSASSA-PKCS1-v1_5
// is deterministic), for the key's own hash; digests given whole or in parts are the same.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SANDBOX_TAXPAYER_CERTS } from "../sandbox/credentials/index.ts";
import { sha1Base64, signRsa } from "./crypto.ts";
import { base64ToBytes } from "./encoding.ts";

const pkcs8 = base64ToBytes(SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem.replace(/-----[^-]+-----|\s/g, ""));
const data = new TextEncoder().encode("<SignedInfo>Señal</SignedInfo>");

describe("signRsa", () => {
  for (const hash of ["SHA-1", "SHA-256"]) {
    it(`gives WebCrypto's signature for an RSASSA-PKCS1-v1_5 ${hash} key`, async () => {
      const key = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "RSASSA-PKCS1-v1_5", hash }, false, ["sign"]);
      const webCrypto = new Uint8Array(await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, data));
      expect([...(await signRsa(key, data))]).toEqual([...webCrypto]);
      // The second time from the converted key kept for it.
      expect([...(await signRsa(key, data))]).toEqual([...webCrypto]);
    });
  }

  it("leaves a key it cannot use to WebCrypto, which refuses it as before", async () => {
    const pss = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "RSA-PSS", hash: "SHA-256" }, false, ["sign"]);
    await expect(signRsa(pss, data)).rejects.toThrow();
  });
});

describe("sha1Base64", () => {
  it("is SHA-1 of the UTF-8 bytes, whole or in parts", () => {
    const expected = createHash("sha1").update(Buffer.from("<a>ñ</a><b/>", "utf8")).digest("base64");
    expect(sha1Base64("<a>ñ</a><b/>")).toBe(expected);
    expect(sha1Base64(["<a>ñ", "</a>", "", "<b/>"])).toBe(expected);
  });
});
