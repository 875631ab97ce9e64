// Password-based decryption of private keys and PKCS#12 safes: PBES2 (PBKDF2 + AES-CBC or
// 3DES-CBC, RFC 8018 §6.2 and appendix A.2/A.4, what OpenSSL 3 writes) and the PKCS#12 PBE schemes
// (RFC 7292 appendix B and C, what Chilean CAs, Windows and older OpenSSL write:
// pbeWithSHAAnd3-KeyTripleDES-CBC for keys, pbeWithSHAAnd40BitRC2-CBC for certificates).
// PBKDF2 and AES run in WebCrypto (natively, off the event loop on Node); the PKCS#12 KDF hashes
// with node:crypto (synchronous: thousands of chained digests), 3DES is node:crypto's des-ede3-cbc
// (OpenSSL's default provider, and workerd's nodejs_compat), RC2 is rc2.ts.
import { createDecipheriv, createHash } from "node:crypto";
import { type Asn1, children, integerOf, isType, octetsOf, oidOf, TAG } from "./asn1.ts";
import type { KdfBudget } from "./kdf-limit.ts";
import { rc2CbcDecrypt } from "./rc2.ts";

/** An encryption scheme this reader does not implement, named by its OID. */
export class UnsupportedAlgorithm extends Error {
  readonly oid: string;
  constructor(oid: string) {
    super(`unsupported algorithm ${oid}`);
    this.oid = oid;
  }
}

const PBES2 = "1.2.840.113549.1.5.13";
const PBKDF2 = "1.2.840.113549.1.5.12";

/** PBKDF2's PRF (RFC 8018 appendix B.1.2), hmacWithSHA1 when absent. */
const PRF_HASHES: Record<string, string> = {
  "1.2.840.113549.2.7": "SHA-1",
  "1.2.840.113549.2.9": "SHA-256",
  "1.2.840.113549.2.10": "SHA-384",
  "1.2.840.113549.2.11": "SHA-512",
};

/** PBES2 ciphers: AES-CBC by key length (NIST OIDs), and des-ede3-cbc (RFC 8018 appendix B.2.2). */
const AES_CBC: Record<string, number> = { "2.16.840.1.101.3.4.1.2": 16, "2.16.840.1.101.3.4.1.22": 24, "2.16.840.1.101.3.4.1.42": 32 };
const DES_EDE3_CBC = "1.2.840.113549.3.7";

/** PKCS#12 PBE (RFC 7292 appendix C): cipher and key length in bytes. */
const PKCS12_PBE: Record<string, { cipher: "3des" | "rc2"; keyLength: number }> = {
  "1.2.840.113549.1.12.1.3": { cipher: "3des", keyLength: 24 },
  "1.2.840.113549.1.12.1.4": { cipher: "3des", keyLength: 16 }, // two-key: K3 = K1
  "1.2.840.113549.1.12.1.5": { cipher: "rc2", keyLength: 16 },
  "1.2.840.113549.1.12.1.6": { cipher: "rc2", keyLength: 5 },
};

/** node:crypto's digest names and their block size in bytes (the KDF's v). */
const KDF_HASHES: Record<string, number> = { sha1: 64, sha224: 64, sha256: 64, sha384: 128, sha512: 128 };

/** The passphrase as PKCS#12 takes it: BMPString (UTF-16BE) with a two-zero-byte terminator (RFC 7292 appendix B.1). */
export function bmpPassword(passphrase: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(passphrase.length * 2 + 2);
  for (let i = 0; i < passphrase.length; i++) {
    const unit = passphrase.charCodeAt(i);
    out[2 * i] = unit >> 8;
    out[2 * i + 1] = unit & 0xff;
  }
  return out;
}

/** `source` repeated to fill a multiple of v bytes (empty stays empty). */
function fill(source: Uint8Array, v: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(v * Math.ceil(source.length / v));
  for (let i = 0; i < out.length; i++) out[i] = source[i % source.length] as number;
  return out;
}

/**
 * The PKCS#12 key derivation (RFC 7292 appendix B.2): `id` 1 for a key, 2 for an IV, 3 for the MAC
 * key. Charged to the budget before it runs.
 */
export async function pkcs12Kdf(
  hash: string,
  id: 1 | 2 | 3,
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  length: number,
  budget: KdfBudget,
): Promise<Uint8Array<ArrayBuffer>> {
  const v = KDF_HASHES[hash];
  if (!v) throw new RangeError(`no PKCS#12 KDF for ${hash}`);
  await budget.charge(iterations);
  const rounds = Math.max(iterations, 1);
  const d = new Uint8Array(v).fill(id);
  const i = new Uint8Array([...fill(salt, v), ...fill(password, v)]);
  const out = new Uint8Array(length);
  for (let produced = 0; produced < length; ) {
    let a: Uint8Array = createHash(hash).update(d).update(i).digest();
    if (hash === "sha1") a = sha1Repeated(a, rounds - 1);
    else for (let r = 1; r < rounds; r++) a = createHash(hash).update(a).digest();
    out.set(a.subarray(0, Math.min(a.length, length - produced)), produced);
    produced += a.length;
    if (produced >= length) break;
    // I_j = (I_j + B + 1) mod 2^(8v), B being A repeated to v bytes.
    const b = fill(a, v).subarray(0, v);
    for (let j = 0; j < i.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = (i[j + k] as number) + (b[k] as number) + carry;
        i[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return out;
}

const SHA1_W = new Uint32Array(80);
const SHA1_H = new Uint32Array(5);

/**
 * SHA-1 applied `times` times to a 20-byte digest (FIPS 180-4 §6.1, one padded block each time):
 * the inner loop of the PKCS#12 KDF of every legacy PFX. A `createHash` object per round cost
 * ~3 µs; this, well under one.
 */
export function sha1Repeated(digest: Uint8Array, times: number): Uint8Array<ArrayBuffer> {
  const w = SHA1_W;
  const h = SHA1_H;
  for (let i = 0; i < 5; i++)
    h[i] =
      (((digest[4 * i] as number) << 24) |
        ((digest[4 * i + 1] as number) << 16) |
        ((digest[4 * i + 2] as number) << 8) |
        (digest[4 * i + 3] as number)) >>>
      0;
  for (let round = 0; round < times; round++) {
    // The block: the 20-byte message, the 0x80 marker, zeros, and the length (160 bits).
    for (let i = 0; i < 5; i++) w[i] = h[i] as number;
    w[5] = 0x80000000;
    for (let i = 6; i < 15; i++) w[i] = 0;
    w[15] = 160;
    for (let t = 16; t < 80; t++) {
      const x = (w[t - 3] as number) ^ (w[t - 8] as number) ^ (w[t - 14] as number) ^ (w[t - 16] as number);
      w[t] = (x << 1) | (x >>> 31);
    }
    let a = 0x67452301;
    let b = 0xefcdab89;
    let c = 0x98badcfe;
    let d = 0x10325476;
    let e = 0xc3d2e1f0;
    for (let t = 0; t < 80; t++) {
      const f = t < 20 ? (b & c) | (~b & d) : t < 40 ? b ^ c ^ d : t < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d;
      const k = t < 20 ? 0x5a827999 : t < 40 ? 0x6ed9eba1 : t < 60 ? 0x8f1bbcdc : 0xca62c1d6;
      const temp = (((a << 5) | (a >>> 27)) + f + e + k + (w[t] as number)) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = temp;
    }
    h[0] = (0x67452301 + a) | 0;
    h[1] = (0xefcdab89 + b) | 0;
    h[2] = (0x98badcfe + c) | 0;
    h[3] = (0x10325476 + d) | 0;
    h[4] = (0xc3d2e1f0 + e) | 0;
  }
  const out = new Uint8Array(20);
  for (let i = 0; i < 5; i++) {
    const v = h[i] as number;
    out[4 * i] = v >>> 24;
    out[4 * i + 1] = (v >>> 16) & 0xff;
    out[4 * i + 2] = (v >>> 8) & 0xff;
    out[4 * i + 3] = v & 0xff;
  }
  return out;
}

/** CBC decryption through node:crypto (3DES); null when the padding is wrong. */
function nodeCbcDecrypt(cipher: string, key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array<ArrayBuffer> | null {
  try {
    const decipher = createDecipheriv(cipher, key, iv);
    const head = decipher.update(data);
    const tail = decipher.final();
    const out = new Uint8Array(head.length + tail.length);
    out.set(head);
    out.set(tail, head.length);
    return out;
  } catch {
    return null;
  }
}

/** 3DES-CBC with a 24-byte key, or a 16-byte two-key one (K3 = K1). */
export function tripleDesDecrypt(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array<ArrayBuffer> | null {
  const full = key.length === 16 ? new Uint8Array([...key, ...key.subarray(0, 8)]) : key;
  if (full.length !== 24 || iv.length !== 8 || data.length === 0 || data.length % 8 !== 0) return null;
  return nodeCbcDecrypt("des-ede3-cbc", full, iv, data);
}

async function aesCbcDecrypt(key: Uint8Array<ArrayBuffer>, iv: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>) {
  try {
    const aes = await crypto.subtle.importKey("raw", key, "AES-CBC", false, ["decrypt"]);
    return new Uint8Array(await crypto.subtle.decrypt({ name: "AES-CBC", iv }, aes, data));
  } catch {
    return null;
  }
}

const salted = (params: Asn1 | undefined) => {
  const [saltNode, countNode] = children(params);
  const salt = isType(saltNode, TAG.OCTET_STRING) ? octetsOf(saltNode) : null;
  const iterations = integerOf(countNode);
  return salt && iterations !== null ? { salt, iterations } : null;
};

/** PBES2 (RFC 8018 appendix A.4): PBKDF2 with an HMAC PRF, then AES-CBC or 3DES-CBC. */
async function decryptPbes2(params: Asn1 | undefined, data: Uint8Array<ArrayBuffer>, passphrase: string, budget: KdfBudget) {
  const [kdf, scheme] = children(params);
  const [kdfOid, kdfParams] = children(kdf);
  const [cipherOid, ivNode] = children(scheme);
  const kdfName = oidOf(kdfOid);
  if (kdfName !== PBKDF2) throw new UnsupportedAlgorithm(kdfName ?? PBES2);
  const cipher = oidOf(cipherOid) ?? PBES2;
  const keyLength = cipher === DES_EDE3_CBC ? 24 : AES_CBC[cipher];
  if (!keyLength) throw new UnsupportedAlgorithm(cipher);
  const [, , ...rest] = children(kdfParams);
  const prf = rest.find((node) => isType(node, TAG.SEQUENCE));
  const prfOid = prf ? (oidOf(children(prf)[0]) ?? "") : "";
  const hash = prf ? PRF_HASHES[prfOid] : "SHA-1";
  if (!hash) throw new UnsupportedAlgorithm(prfOid);
  const salt = salted(kdfParams);
  const iv = isType(ivNode, TAG.OCTET_STRING) ? octetsOf(ivNode) : null;
  if (!salt || !iv) return null;
  await budget.charge(salt.iterations);
  const password = await crypto.subtle.importKey("raw", new TextEncoder().encode(passphrase), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", salt: salt.salt, iterations: Math.max(salt.iterations, 1), hash },
    password,
    keyLength * 8,
  );
  const key = new Uint8Array(bits);
  if (cipher === DES_EDE3_CBC) return tripleDesDecrypt(key, iv, data);
  return iv.length === 16 ? aesCbcDecrypt(key, iv, data) : null;
}

/**
 * Decrypts `data` encrypted under the AlgorithmIdentifier `algorithm` with the passphrase. Null
 * when it does not decrypt (wrong passphrase, damaged data); throws UnsupportedAlgorithm, or the
 * KDF budget's refusal before deriving.
 */
export async function decryptWithPassphrase(
  algorithm: Asn1 | undefined,
  data: Uint8Array<ArrayBuffer>,
  passphrase: string,
  budget: KdfBudget,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const [schemeNode, params] = children(algorithm);
  const scheme = oidOf(schemeNode);
  if (!scheme) return null;
  if (scheme === PBES2) return decryptPbes2(params, data, passphrase, budget);
  const pbe = PKCS12_PBE[scheme];
  if (!pbe) throw new UnsupportedAlgorithm(scheme);
  const salt = salted(params);
  if (!salt) return null;
  const password = bmpPassword(passphrase);
  const key = await pkcs12Kdf("sha1", 1, password, salt.salt, salt.iterations, pbe.keyLength, budget);
  const iv = await pkcs12Kdf("sha1", 2, password, salt.salt, salt.iterations, 8, budget);
  if (pbe.cipher === "3des") return tripleDesDecrypt(key, iv, data);
  return rc2CbcDecrypt(key, pbe.keyLength * 8, iv, data);
}
