// RSA private keys in every form OpenSSL writes, normalized to unencrypted PKCS#8, the only form
// WebCrypto imports: PKCS#8, PKCS#1 (wrapped here; workerd accepts it raw, Node does not),
// encrypted PKCS#8 (PBES2 or PKCS#12 PBE, pbe.ts) and old OpenSSL encrypted PKCS#1 (Proc-Type
// headers).

import { createHash } from "node:crypto";
import { bytesToHex } from "../lib/encoding.ts";
import {
  type Asn1,
  children,
  isType,
  keyAlgorithmName,
  octetsOf,
  oidOf,
  parseDer,
  RSA_ENCRYPTION,
  TAG,
  unsignedBytes,
  wrapRsaPrivateKey,
} from "./asn1.ts";
import { type CertField, credentialError } from "./credential-error.ts";
import { isKdfRefusal, type KdfFee, kdfBudget } from "./kdf-limit.ts";
import { decryptWithPassphrase, tripleDesDecrypt, UnsupportedAlgorithm } from "./pbe.ts";
import { type DerBlock, readDerBlocks } from "./pem.ts";

export interface RsaPrivateKey {
  pkcs8: Uint8Array<ArrayBuffer>;
  /** Compared with the certificate's to pair them. */
  modulusHex: string;
}

const notRsa = (field: CertField, algorithm: string) =>
  credentialError(field, `the private key in auth.cert.${field} is ${algorithm}, not RSA; the SII only accepts RSA keys`);

/** The modulus of a PKCS#1 RSAPrivateKey (RFC 8017 appendix A.1.2: version and eight INTEGERs), else null. */
function pkcs1Modulus(pkcs1: Uint8Array): string | null {
  const node = parseDer(pkcs1);
  const fields = children(node ?? undefined);
  if (!isType(node ?? undefined, TAG.SEQUENCE) || fields.length < 9 || !fields.slice(0, 9).every((f) => isType(f, TAG.INTEGER)))
    return null;
  const modulus = unsignedBytes(fields[1]);
  return modulus ? bytesToHex(modulus).replace(/^0+/, "") : null;
}

/** From a PrivateKeyInfo (PKCS#8): RSA only; re-wrapped without attributes, as WebCrypto wants it. */
export function rsaKeyFromPrivateKeyInfo(info: Asn1, field: CertField): RsaPrivateKey {
  const [, algorithm, keyNode] = children(info);
  const oid = oidOf(children(algorithm)[0]);
  if (oid !== RSA_ENCRYPTION) throw notRsa(field, keyAlgorithmName(oid));
  const pkcs1 = isType(keyNode, TAG.OCTET_STRING) ? octetsOf(keyNode) : null;
  const modulusHex = pkcs1 ? pkcs1Modulus(pkcs1) : null;
  if (!pkcs1 || !modulusHex) throw credentialError(field, `auth.cert.${field} does not hold a valid RSA private key`);
  return { pkcs8: wrapRsaPrivateKey(pkcs1), modulusHex };
}

function rsaKeyFromPkcs1(pkcs1: Uint8Array, field: CertField): RsaPrivateKey {
  const modulusHex = pkcs1Modulus(pkcs1);
  if (!modulusHex) throw credentialError(field, `auth.cert.${field} does not hold a valid RSA private key`);
  return { pkcs8: wrapRsaPrivateKey(pkcs1), modulusHex };
}

type KeyShape = "pkcs8" | "pkcs1" | "encrypted-pkcs8" | "ec" | null;

/** Told apart by structure, so a bare base64 DER key works as well as a labelled PEM one. */
export function keyShape(node: Asn1): KeyShape {
  if (!isType(node, TAG.SEQUENCE)) return null;
  const [first, second] = children(node);
  const { INTEGER, SEQUENCE, OCTET_STRING } = TAG;
  if (isType(first, INTEGER) && isType(second, SEQUENCE)) return "pkcs8"; // version, algorithm, key
  if (isType(first, INTEGER) && isType(second, INTEGER)) return "pkcs1"; // version, modulus, …
  if (isType(first, INTEGER) && isType(second, OCTET_STRING)) return "ec"; // SEC1 ECPrivateKey
  if (isType(first, SEQUENCE) && isType(second, OCTET_STRING)) return "encrypted-pkcs8"; // algorithm, data
  return null;
}

function requirePassphrase(passphrase: string | undefined): string {
  if (!passphrase) throw credentialError("passphrase", "auth.cert.pkey-data is an encrypted private key: auth.cert.passphrase is required");
  return passphrase;
}

const wrongPassphrase = () =>
  credentialError("passphrase", "wrong passphrase: the encrypted private key in auth.cert.pkey-data could not be decrypted with it");

async function decryptPkcs8(encrypted: Asn1, passphrase: string, pay: KdfFee | undefined): Promise<Asn1> {
  const [algorithm, data] = children(encrypted);
  const body = octetsOf(data);
  let plain: Uint8Array | null = null;
  try {
    if (body) plain = await decryptWithPassphrase(algorithm, body, passphrase, kdfBudget("pkey-data", pay));
  } catch (error) {
    if (isKdfRefusal(error)) throw error;
    if (error instanceof UnsupportedAlgorithm)
      throw credentialError("pkey-data", `auth.cert.pkey-data is encrypted with an unsupported algorithm (${error.oid})`);
    plain = null;
  }
  // A wrong passphrase can still leave valid padding by chance: check that a key came out.
  const info = plain ? parseDer(plain) : null;
  if (!info || keyShape(info) !== "pkcs8") throw wrongPassphrase();
  return info;
}

/** Cipher name in DEK-Info → key length (OpenSSL's PEM_write_bio_RSAPrivateKey with a cipher). */
const LEGACY_CIPHERS: Record<string, number> = {
  "AES-128-CBC": 16,
  "AES-192-CBC": 24,
  "AES-256-CBC": 32,
  "DES-EDE3-CBC": 24,
  "DES-CBC": 8,
};

/** OpenSSL's EVP_BytesToKey with MD5 and one iteration: the key of a Proc-Type encrypted PEM. */
function bytesToKey(password: Uint8Array, salt: Uint8Array, length: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  let previous = new Uint8Array(0);
  for (let produced = 0; produced < length; produced += 16) {
    previous = new Uint8Array(createHash("md5").update(previous).update(password).update(salt).digest());
    out.set(previous.subarray(0, Math.min(16, length - produced)), produced);
  }
  return out;
}

/** A traditional OpenSSL `RSA PRIVATE KEY` block with `Proc-Type: 4,ENCRYPTED` and `DEK-Info` headers. */
async function decryptLegacyPem(block: DerBlock, passphrase: string): Promise<RsaPrivateKey> {
  const dekInfo = block.headers.find((h) => /^DEK-Info:/i.test(h)) ?? "";
  const [name = "", ivHex = ""] = dekInfo.replace(/^DEK-Info:\s*/i, "").split(",");
  const cipher = name.trim().toUpperCase();
  const keyLength = LEGACY_CIPHERS[cipher];
  if (!keyLength)
    throw credentialError("pkey-data", `auth.cert.pkey-data is encrypted with an unsupported algorithm (${cipher || "none named"})`);
  const iv = Uint8Array.from(ivHex.trim().match(/[0-9a-f]{2}/gi) ?? [], (h) => Number.parseInt(h, 16));
  const ivLength = cipher.startsWith("AES") ? 16 : 8;
  if (iv.length !== ivLength) throw wrongPassphrase();
  const key = bytesToKey(new TextEncoder().encode(passphrase), iv.subarray(0, 8), keyLength);
  let plain: Uint8Array | null;
  if (cipher.startsWith("AES")) {
    try {
      const aes = await crypto.subtle.importKey("raw", key, "AES-CBC", false, ["decrypt"]);
      plain = new Uint8Array(await crypto.subtle.decrypt({ name: "AES-CBC", iv }, aes, block.der));
    } catch {
      plain = null;
    }
  } else {
    // Single DES is 3DES with one key three times.
    plain = tripleDesDecrypt(cipher === "DES-CBC" ? new Uint8Array([...key, ...key, ...key]) : key, iv, block.der);
  }
  const node = plain ? parseDer(plain) : null;
  if (!plain || !node || keyShape(node) !== "pkcs1") throw wrongPassphrase();
  return rsaKeyFromPkcs1(plain, "pkey-data");
}

const notAKey = () => credentialError("pkey-data", "auth.cert.pkey-data is not a private key (PKCS#8, PKCS#1 or encrypted PKCS#8)");

type Located = { key: RsaPrivateKey } | { encrypted: Asn1 } | { legacy: DerBlock };

function locate(text: string, passphrase: string | undefined): Located {
  const blocks = readDerBlocks(text);
  if (!blocks) throw credentialError("pkey-data", "auth.cert.pkey-data is not a PEM private key, nor base64 DER");
  const block = blocks.find((b) => b.label === null || b.label.endsWith("PRIVATE KEY"));
  if (!block) {
    const found = blocks.map((b) => b.label).join(", ");
    throw credentialError("pkey-data", `auth.cert.pkey-data holds no private key (found: ${found})`);
  }
  if (block.label === "EC PRIVATE KEY" || block.label === "DSA PRIVATE KEY")
    throw notRsa("pkey-data", block.label.replace(" PRIVATE KEY", ""));
  if (block.headers.some((h) => /^Proc-Type:.*ENCRYPTED/i.test(h))) {
    requirePassphrase(passphrase);
    return { legacy: block };
  }
  const node = parseDer(block.der);
  if (!node) throw notAKey();
  switch (keyShape(node)) {
    case "pkcs8":
      return { key: rsaKeyFromPrivateKeyInfo(node, "pkey-data") };
    case "pkcs1":
      return { key: rsaKeyFromPkcs1(node.raw, "pkey-data") };
    case "encrypted-pkcs8":
      requirePassphrase(passphrase);
      return { encrypted: node };
    case "ec":
      throw notRsa("pkey-data", "EC");
    default:
      throw notAKey();
  }
}

/** Any form above; encrypted keys are decrypted with the passphrase, `pay` taking the fee of the derivation (kdf-limit.ts). */
export async function readPrivateKeyAsync(text: string, passphrase: string | undefined, pay?: KdfFee): Promise<RsaPrivateKey> {
  const found = locate(text, passphrase);
  if ("key" in found) return found.key;
  const secret = requirePassphrase(passphrase);
  if ("legacy" in found) return decryptLegacyPem(found.legacy, secret);
  return rsaKeyFromPrivateKeyInfo(await decryptPkcs8(found.encrypted, secret, pay), "pkey-data");
}

/** An unencrypted key, synchronously (a CAF's RSASK); an encrypted one asks for the passphrase. */
export function readPrivateKey(text: string, passphrase: undefined): RsaPrivateKey {
  const found = locate(text, passphrase);
  if ("key" in found) return found.key;
  throw credentialError("pkey-data", "auth.cert.pkey-data is an encrypted private key: auth.cert.passphrase is required");
}
