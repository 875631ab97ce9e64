// PKCS#12 (.pfx/.p12, RFC 7292) in password-integrity and password-privacy mode, the only one
// Chilean CAs, OpenSSL and Windows write: both the legacy files (RC2-40 certificates, 3DES key,
// SHA-1 MAC) and OpenSSL 3's default (PBES2 with AES-256-CBC, SHA-256 MAC). The MAC is checked
// first whenever there is one, so a wrong passphrase is told apart from a damaged file.
import { createHmac } from "node:crypto";
import { type Asn1, children, contextChild, integerOf, isType, octetsOf, oidOf, parseDer, TAG } from "./asn1.ts";
import { credentialError } from "./credential-error.ts";
import { type KdfBudget, type KdfFee, kdfBudget } from "./kdf-limit.ts";
import { bmpPassword, decryptWithPassphrase, pkcs12Kdf, UnsupportedAlgorithm } from "./pbe.ts";
import { decodeBase64 } from "./pem.ts";
import { keyShape, type RsaPrivateKey, rsaKeyFromPrivateKeyInfo } from "./private-key.ts";

export interface PfxContents {
  keys: RsaPrivateKey[];
  /** DER of every certificate bag: the holder's and usually its CA chain. */
  certificates: Uint8Array<ArrayBuffer>[];
}

const DATA = "1.2.840.113549.1.7.1";
const ENCRYPTED_DATA = "1.2.840.113549.1.7.6";
const KEY_BAG = "1.2.840.113549.1.12.10.1.1";
const SHROUDED_KEY_BAG = "1.2.840.113549.1.12.10.1.2";
const CERT_BAG = "1.2.840.113549.1.12.10.1.3";
const SAFE_CONTENTS_BAG = "1.2.840.113549.1.12.10.1.6";

/** The MAC's digest (RFC 7292 appendix B.4: HMAC keyed by the PKCS#12 KDF with the same hash). */
const MAC_HASHES: Record<string, string> = {
  "1.3.14.3.2.26": "sha1",
  "2.16.840.1.101.3.4.2.4": "sha224",
  "2.16.840.1.101.3.4.2.1": "sha256",
  "2.16.840.1.101.3.4.2.2": "sha384",
  "2.16.840.1.101.3.4.2.3": "sha512",
};

/**
 * Bags read from one file. A certificate file holds a key, its certificate and the CA chain (a
 * handful); each bag costs a parse, and keys and certificates are compared pairwise afterwards.
 */
export const MAX_PFX_BAGS = 64;

const notPfx = () => credentialError("pfx-data", "auth.cert.pfx-data is not a PKCS#12 (.pfx/.p12) file");
const unsupported = (oid: string) => credentialError("pfx-data", `auth.cert.pfx-data uses an unsupported algorithm (${oid})`);
const undecryptable = () =>
  credentialError("passphrase", "wrong passphrase: the contents of auth.cert.pfx-data could not be decrypted with it");

/** The content of a ContentInfo of type data: `[0] EXPLICIT OCTET STRING`. */
const dataContent = (info: Asn1 | undefined) => octetsOf(contextChild(info, 0)?.children[0]);

async function verifyMac(macData: Asn1, authSafe: Uint8Array, passphrase: string, budget: KdfBudget): Promise<void> {
  const [digestInfo, saltNode, countNode] = children(macData);
  const [algorithm, digestNode] = children(digestInfo);
  const oid = oidOf(children(algorithm)[0]);
  if (!oid) throw notPfx();
  const hash = MAC_HASHES[oid];
  if (!hash) throw unsupported(oid);
  const salt = octetsOf(saltNode);
  const expected = octetsOf(digestNode);
  // iterations INTEGER DEFAULT 1
  const iterations = countNode ? integerOf(countNode) : 1;
  if (!salt || !expected || iterations === null) throw notPfx();
  const length = createHmac(hash, "").digest().length;
  const key = await pkcs12Kdf(hash, 3, bmpPassword(passphrase), salt, iterations, length, budget);
  const actual = createHmac(hash, key).update(authSafe).digest();
  let diff = actual.length ^ expected.length;
  for (let i = 0; i < actual.length; i++) diff |= (actual[i] as number) ^ (expected[i] ?? 0);
  if (diff !== 0) throw credentialError("passphrase", "wrong passphrase: the integrity check (MAC) of auth.cert.pfx-data failed with it");
}

async function decrypt(algorithm: Asn1 | undefined, data: Uint8Array<ArrayBuffer>, passphrase: string, budget: KdfBudget) {
  try {
    return await decryptWithPassphrase(algorithm, data, passphrase, budget);
  } catch (error) {
    if (error instanceof UnsupportedAlgorithm) throw unsupported(error.oid);
    throw error;
  }
}

async function readSafeContents(bytes: Uint8Array, passphrase: string, budget: KdfBudget, out: PfxContents, depth = 0): Promise<void> {
  const safe = parseDer(bytes);
  if (!isType(safe ?? undefined, TAG.SEQUENCE) || depth > 4) throw notPfx();
  for (const bag of children(safe ?? undefined)) {
    if (out.keys.length + out.certificates.length >= MAX_PFX_BAGS)
      throw credentialError(
        "pfx-data",
        `auth.cert.pfx-data holds more than ${MAX_PFX_BAGS} keys and certificates; a certificate file holds a few`,
      );
    const [bagId] = children(bag);
    const value = contextChild(bag, 0)?.children[0];
    switch (oidOf(bagId)) {
      case CERT_BAG: {
        // CertBag: { certId, [0] EXPLICIT OCTET STRING }: the certificate's own DER, byte for byte.
        const der = octetsOf(contextChild(value, 0)?.children[0]);
        if (der) out.certificates.push(der);
        break;
      }
      case KEY_BAG:
        if (value) out.keys.push(rsaKeyFromPrivateKeyInfo(value, "pfx-data"));
        break;
      case SHROUDED_KEY_BAG: {
        const [algorithm, data] = children(value);
        const body = octetsOf(data);
        const plain = body ? await decrypt(algorithm, body, passphrase, budget) : null;
        const info = plain ? parseDer(plain) : null;
        if (!info || keyShape(info) !== "pkcs8") throw undecryptable();
        out.keys.push(rsaKeyFromPrivateKeyInfo(info, "pfx-data"));
        break;
      }
      case SAFE_CONTENTS_BAG:
        if (value) await readSafeContents(value.raw, passphrase, budget, out, depth + 1);
        break;
      default:
        break; // CRLs, secrets: not needed for signing
    }
  }
}

/** The keys and certificates of a PFX; `pay` takes the fee of its key derivations (kdf-limit.ts). */
export async function readPfx(pfxBase64: string, passphrase: string | undefined, pay?: KdfFee): Promise<PfxContents> {
  const bytes = decodeBase64(pfxBase64);
  if (!bytes) throw credentialError("pfx-data", "auth.cert.pfx-data is not base64");
  const root = parseDer(bytes);
  if (!root) throw notPfx();
  if (passphrase === undefined) throw credentialError("passphrase", "auth.cert.passphrase is required to open auth.cert.pfx-data");

  // PFX: { version 3, authSafe ContentInfo, macData OPTIONAL }.
  const [version, authSafeInfo, macData] = children(root);
  if (!isType(root, TAG.SEQUENCE) || integerOf(version) !== 3 || !isType(authSafeInfo, TAG.SEQUENCE)) throw notPfx();
  const contentType = oidOf(children(authSafeInfo)[0]);
  if (contentType !== DATA) throw contentType ? unsupported(contentType) : notPfx();
  const authSafe = dataContent(authSafeInfo);
  if (!authSafe) throw notPfx();

  // Every derivation (MAC, encrypted safes, shrouded keys) is charged to one budget, refused or paid before it runs.
  const budget = kdfBudget("pfx-data", pay);
  if (macData) await verifyMac(macData, authSafe, passphrase, budget);

  const contents: PfxContents = { keys: [], certificates: [] };
  const safes = parseDer(authSafe);
  if (!isType(safes ?? undefined, TAG.SEQUENCE)) throw notPfx();
  for (const info of children(safes ?? undefined)) {
    const type = oidOf(children(info)[0]);
    if (type === DATA) {
      const safe = dataContent(info);
      if (!safe) throw notPfx();
      await readSafeContents(safe, passphrase, budget, contents);
    } else if (type === ENCRYPTED_DATA) {
      // EncryptedData: { version, EncryptedContentInfo { contentType, algorithm, [0] IMPLICIT encryptedContent } }.
      const [, encryptedContentInfo] = children(contextChild(info, 0)?.children[0]);
      const [, algorithm] = children(encryptedContentInfo);
      const encrypted = octetsOf(contextChild(encryptedContentInfo, 0));
      if (!encrypted) throw notPfx();
      const plain = await decrypt(algorithm, encrypted, passphrase, budget);
      if (!plain || !parseDer(plain)) throw undecryptable();
      await readSafeContents(plain, passphrase, budget, contents);
    } else {
      throw type ? unsupported(type) : notPfx();
    }
  }
  return contents;
}
