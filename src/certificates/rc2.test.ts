// RC2 and 3DES decryption (the ciphers of legacy PKCS#12 files) and the PKCS#12 KDF, against
// published test vectors and OpenSSL's own output.
import { createCipheriv, createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { kdfBudget } from "./kdf-limit.ts";
import { bmpPassword, pkcs12Kdf, sha1Repeated, tripleDesDecrypt } from "./pbe.ts";
import { rc2CbcDecrypt, rc2DecryptBlock } from "./rc2.ts";

const hex = (text: string) => Uint8Array.from(text.match(/../g) ?? [], (h) => Number.parseInt(h, 16));
const bytesToHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

describe("RC2 (RFC 2268 §5 test vectors)", () => {
  const vectors: [key: string, effectiveBits: number, plain: string, cipher: string][] = [
    ["0000000000000000", 63, "0000000000000000", "ebb773f993278eff"],
    ["ffffffffffffffff", 64, "ffffffffffffffff", "278b27e42e2f0d49"],
    ["3000000000000000", 64, "1000000000000001", "30649edf9be7d2c2"],
    ["88", 64, "0000000000000000", "61a8a244adacccf0"],
    ["88bca90e90875a", 64, "0000000000000000", "6ccf4308974c267f"],
    ["88bca90e90875a7f0f79c384627bafb2", 64, "0000000000000000", "1a807d272bbe5db1"],
    ["88bca90e90875a7f0f79c384627bafb2", 128, "0000000000000000", "2269552ab0f85ca6"],
    ["88bca90e90875a7f0f79c384627bafb216f80a6f85920584c42fceb0be255daf1e", 129, "0000000000000000", "5b78d3a43dfff1f1"],
  ];
  it.each(vectors)("key %s, %i effective bits", (key, bits, plain, cipher) => {
    expect(bytesToHex(rc2DecryptBlock(hex(key), bits, hex(cipher)))).toBe(plain);
  });

  it("CBC: XORs the IV, removes the padding, and refuses a wrong one", () => {
    // The 128-bit vector's block decrypts to zeros: with an IV of eights it is one block of pure padding.
    const key = hex("88bca90e90875a7f0f79c384627bafb2");
    const c = hex("2269552ab0f85ca6");
    expect(rc2CbcDecrypt(key, 128, hex("0808080808080808"), c)).toEqual(new Uint8Array(0));
    expect(rc2CbcDecrypt(key, 128, hex("0000000000000000"), c)).toBeNull();
    // Twice: the second block decrypts to zeros XOR the first ciphertext block, not a padding.
    expect(rc2CbcDecrypt(key, 128, hex("0808080808080808"), new Uint8Array([...c, ...c]))).toBeNull();
  });
});

describe("3DES-CBC", () => {
  it("decrypts what OpenSSL encrypts, three-key and two-key, and refuses a wrong key", () => {
    const key = hex("0123456789abcdef23456789abcdef01456789abcdef0123");
    const iv = hex("1234567890abcdef");
    const plain = new TextEncoder().encode("Now is the time for all PKCS#12 files");
    const encrypt = (k: Uint8Array) => {
      const cipher = createCipheriv("des-ede3-cbc", k, iv);
      return new Uint8Array([...cipher.update(plain), ...cipher.final()]);
    };
    expect(tripleDesDecrypt(key, iv, encrypt(key))).toEqual(plain);
    const twoKey = key.subarray(0, 16);
    expect(tripleDesDecrypt(twoKey, iv, encrypt(new Uint8Array([...twoKey, ...key.subarray(0, 8)])))).toEqual(plain);
    const wrong = tripleDesDecrypt(hex("fedcba9876543210fedcba9876543210fedcba9876543210"), iv, encrypt(key));
    expect(wrong).not.toEqual(plain);
  });

  it("matches the NIST SP 800-67 example (three distinct keys, each block on its own)", () => {
    // SP 800-67 Rev. 2 appendix B: K1 K2 K3 below, "The qufck brown fox jump" in ECB mode.
    const key = hex("0123456789abcdef23456789abcdef01456789abcdef0123");
    const blocks = ["a826fd8ce53b855f", "cce21c8112256fe6", "68d5c05dd9b6b900"].map(hex);
    const plain = blocks.map((block) => {
      // ECB through CBC: a zero IV, then a padding block encrypted after this one.
      const padding = createCipheriv("des-ede3-cbc", key, block).update(new Uint8Array(8).fill(8));
      return new TextDecoder().decode(tripleDesDecrypt(key, new Uint8Array(8), new Uint8Array([...block, ...padding])) ?? new Uint8Array());
    });
    expect(plain.join("")).toBe("The qufck brown fox jump");
  });
});

describe("PKCS#12 KDF (RFC 7292 appendix B)", () => {
  it("derives what OpenSSL derives for the MAC of a PFX (OpenSSL's test vector)", async () => {
    // OpenSSL test/recipes/30-test_evp_data/evpkdf_pkcs12.txt: SHA1, id 1, "smeg", salt 0A58CF64530D823F, 1 iteration.
    const key = await pkcs12Kdf("sha1", 1, bmpPassword("smeg"), hex("0a58cf64530d823f"), 1, 24, kdfBudget("pfx-data"));
    expect(bytesToHex(key)).toBe("8aaae6297b6cb04642ab5b077851284eb7128f1a2a7fbca3");
  });

  it("iterates as OpenSSL does (its 1000-iteration vector), SHA-1 rounds equal to node:crypto's", async () => {
    // Same file: "queeg", salt 1682C0FC5B3F7EC5, 1000 iterations, id 1.
    const key = await pkcs12Kdf("sha1", 1, bmpPassword("queeg"), hex("1682c0fc5b3f7ec5"), 1000, 24, kdfBudget("pfx-data"));
    expect(bytesToHex(key)).toBe("483dd6e919d7de2e8e648ba8f862f3fbfbdc2bcb2c02957f");
    const start = new Uint8Array(createHash("sha1").update("semilla").digest());
    for (const times of [0, 1, 2, 64, 100]) {
      let expected = start;
      for (let i = 0; i < times; i++) expected = new Uint8Array(createHash("sha1").update(expected).digest());
      expect(bytesToHex(sha1Repeated(start, times))).toBe(bytesToHex(expected));
    }
  });

  it("charges the budget before deriving", async () => {
    const budget = kdfBudget("pfx-data");
    await expect(pkcs12Kdf("sha1", 3, bmpPassword("x"), hex("00"), 100_001, 20, budget)).rejects.toThrow(/at most 100000 iterations/);
  });
});
