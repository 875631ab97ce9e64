// RSA private keys in every form OpenSSL writes, normalized to unencrypted PKCS#8, the only form
// WebCrypto imports: PKCS#8, PKCS#1 (wrapped here; workerd accepts it raw, Node does not),
// encrypted PKCS#8 (PBES2 or PKCS#12 PBE) and old OpenSSL encrypted PKCS#1 (Proc-Type headers).

import forge from "node-forge";
import { type Asn1, binaryToBytes, children, encodeDer, isType, keyAlgorithmName, oidOf, parseDer, RSA_ENCRYPTION } from "./asn1.ts";
import { type CertField, credentialError } from "./credential-error.ts";
import { checkKdfIterations, isKdfRefusal, withKdfBudget } from "./kdf-limit.ts";
import { type DerBlock, readDerBlocks, toPem } from "./pem.ts";

export interface RsaPrivateKey {
  pkcs8: Uint8Array<ArrayBuffer>;
  /** Compared with the certificate's to pair them. */
  modulusHex: string;
}

const PBES2 = "1.2.840.113549.1.5.13";

const notRsa = (field: CertField, algorithm: string) =>
  credentialError(field, `the private key in auth.cert.${field} is ${algorithm}, not RSA; the SII only accepts RSA keys`);

/** From a PrivateKeyInfo (PKCS#8): RSA only. */
export function rsaKeyFromPrivateKeyInfo(info: Asn1, field: CertField): RsaPrivateKey {
  const algorithm = oidOf(children(children(info)[1])[0]);
  if (algorithm !== RSA_ENCRYPTION) throw notRsa(field, keyAlgorithmName(algorithm));
  try {
    return { pkcs8: encodeDer(info), modulusHex: forge.pki.privateKeyFromAsn1(info).n.toString(16) };
  } catch {
    throw credentialError(field, `auth.cert.${field} does not hold a valid RSA private key`);
  }
}

export function rsaKeyFromForge(key: forge.pki.rsa.PrivateKey): RsaPrivateKey {
  return { pkcs8: encodeDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(key))), modulusHex: key.n.toString(16) };
}

type KeyShape = "pkcs8" | "pkcs1" | "encrypted-pkcs8" | "ec" | null;

/** Told apart by structure, so a bare base64 DER key works as well as a labelled PEM one. */
function keyShape(node: Asn1): KeyShape {
  const [first, second] = children(node);
  const { INTEGER, SEQUENCE, OCTETSTRING } = forge.asn1.Type;
  if (isType(first, INTEGER) && isType(second, SEQUENCE)) return "pkcs8"; // version, algorithm, key
  if (isType(first, INTEGER) && isType(second, INTEGER)) return "pkcs1"; // version, modulus, …
  if (isType(first, INTEGER) && isType(second, OCTETSTRING)) return "ec"; // SEC1 ECPrivateKey
  if (isType(first, SEQUENCE) && isType(second, OCTETSTRING)) return "encrypted-pkcs8"; // algorithm, data
  return null;
}

function requirePassphrase(passphrase: string | undefined): string {
  if (!passphrase) throw credentialError("passphrase", "auth.cert.pkey-data is an encrypted private key: auth.cert.passphrase is required");
  return passphrase;
}

const wrongPassphrase = () =>
  credentialError("passphrase", "wrong passphrase: the encrypted private key in auth.cert.pkey-data could not be decrypted with it");

function decryptPkcs8(encrypted: Asn1, passphrase: string): Asn1 {
  // PBES2 (PBKDF2) takes the passphrase as UTF-8 bytes; PKCS#12 PBE as UTF-16, which forge derives from the string itself.
  const scheme = oidOf(children(children(encrypted)[0])[0]);
  const password = scheme === PBES2 ? forge.util.encodeUtf8(passphrase) : passphrase;
  let info: Asn1 | null;
  try {
    info = withKdfBudget("pkey-data", () => forge.pki.decryptPrivateKeyInfo(encrypted, password));
  } catch (error) {
    if (isKdfRefusal(error)) throw error;
    // forge tags "unsupported algorithm" errors with the OID; anything else is undecryptable data.
    const oid = error instanceof Error && "oid" in error ? String(error.oid) : null;
    if (oid) throw credentialError("pkey-data", `auth.cert.pkey-data is encrypted with an unsupported algorithm (${oid})`);
    info = null;
  }
  // A wrong passphrase can still leave valid padding by chance: check that a key came out.
  if (!info || keyShape(info) !== "pkcs8") throw wrongPassphrase();
  return info;
}

/** A traditional OpenSSL `RSA PRIVATE KEY` block with `Proc-Type: 4,ENCRYPTED` and `DEK-Info` headers. */
function decryptLegacyPem(block: DerBlock, passphrase: string): RsaPrivateKey {
  let key: forge.pki.rsa.PrivateKey | null;
  try {
    key = forge.pki.decryptRsaPrivateKey(
      toPem(block.label ?? "RSA PRIVATE KEY", block.der, block.headers),
      forge.util.encodeUtf8(passphrase),
    );
  } catch {
    key = null;
  }
  if (!key) throw wrongPassphrase();
  return rsaKeyFromForge(key);
}

const notAKey = () => credentialError("pkey-data", "auth.cert.pkey-data is not a private key (PKCS#8, PKCS#1 or encrypted PKCS#8)");

const PBKDF2 = "1.2.840.113549.1.5.12";
/** PBKDF2's PRF (RFC 8018 appendix B.1.2), hmacWithSHA1 when absent. */
const PRF_HASHES: Record<string, string> = {
  "1.2.840.113549.2.7": "SHA-1",
  "1.2.840.113549.2.9": "SHA-256",
  "1.2.840.113549.2.10": "SHA-384",
  "1.2.840.113549.2.11": "SHA-512",
};
/** AES-CBC key lengths in bytes (NIST OIDs); 192 is left to forge, not every WebCrypto has it. */
const AES_CBC: Record<string, number> = { "2.16.840.1.101.3.4.1.2": 16, "2.16.840.1.101.3.4.1.42": 32 };

const bytesOf = (node: Asn1 | undefined): Uint8Array<ArrayBuffer> | null =>
  node && isType(node, forge.asn1.Type.OCTETSTRING) && typeof node.value === "string" ? binaryToBytes(node.value) : null;
const integerOf = (node: Asn1 | undefined): number | null =>
  node && isType(node, forge.asn1.Type.INTEGER) && typeof node.value === "string" && node.value.length <= 6
    ? [...node.value].reduce((n, c) => n * 256 + c.charCodeAt(0), 0)
    : null;

/**
 * PBES2 with PBKDF2 and AES-CBC (what OpenSSL 3 writes by default) through WebCrypto: the derivation
 * runs natively, off the event loop on Node, instead of forge's JavaScript (~1 s at 100 000
 * iterations). Structure per RFC 8018 appendix A.2/A.4. Null when the key is another scheme (forge
 * reads it).
 */
async function decryptPbes2Natively(encrypted: Asn1, passphrase: string): Promise<Asn1 | null> {
  const [algorithm, data] = children(encrypted);
  const [scheme, params] = children(algorithm);
  if (oidOf(scheme) !== PBES2) return null;
  const [kdf, cipher] = children(params);
  const [kdfOid, kdfParams] = children(kdf);
  const [cipherOid, ivNode] = children(cipher);
  if (oidOf(kdfOid) !== PBKDF2) return null;
  const [saltNode, countNode, ...rest] = children(kdfParams);
  const keyLength = AES_CBC[oidOf(cipherOid) ?? ""];
  const salt = bytesOf(saltNode);
  const iv = bytesOf(ivNode);
  const iterations = integerOf(countNode);
  const body = bytesOf(data);
  const prf = rest.find((node) => isType(node, forge.asn1.Type.SEQUENCE));
  const hash = prf ? PRF_HASHES[oidOf(children(prf)[0]) ?? ""] : "SHA-1";
  if (!keyLength || !salt || !iv || iv.length !== 16 || !body || !hash || iterations === null) return null;
  // The same ceiling forge's derivations have, checked before deriving.
  checkKdfIterations("pkey-data", iterations);
  let plain: ArrayBuffer;
  try {
    const password = await crypto.subtle.importKey("raw", new TextEncoder().encode(passphrase), "PBKDF2", false, ["deriveBits"]);
    const bits = await crypto.subtle.deriveBits(
      { name: "PBKDF2", salt, iterations: Math.max(iterations, 1), hash },
      password,
      keyLength * 8,
    );
    const key = await crypto.subtle.importKey("raw", bits, "AES-CBC", false, ["decrypt"]);
    plain = await crypto.subtle.decrypt({ name: "AES-CBC", iv }, key, body);
  } catch {
    throw wrongPassphrase();
  }
  const info = parseDer(new Uint8Array(plain));
  if (!info || keyShape(info) !== "pkcs8") throw wrongPassphrase();
  return info;
}

/** `readPrivateKey`, with PBES2/AES keys decrypted natively (see `decryptPbes2Natively`). */
export async function readPrivateKeyAsync(text: string, passphrase: string | undefined): Promise<RsaPrivateKey> {
  const block = readDerBlocks(text)?.find((b) => b.label === null || b.label.endsWith("PRIVATE KEY"));
  const node = block && !block.headers.length ? parseDer(block.der) : null;
  if (node && keyShape(node) === "encrypted-pkcs8") {
    const info = await decryptPbes2Natively(node, requirePassphrase(passphrase));
    if (info) return rsaKeyFromPrivateKeyInfo(info, "pkey-data");
  }
  return readPrivateKey(text, passphrase);
}

export function readPrivateKey(text: string, passphrase: string | undefined): RsaPrivateKey {
  const blocks = readDerBlocks(text);
  if (!blocks) throw credentialError("pkey-data", "auth.cert.pkey-data is not a PEM private key, nor base64 DER");
  const block = blocks.find((b) => b.label === null || b.label.endsWith("PRIVATE KEY"));
  if (!block) {
    const found = blocks.map((b) => b.label).join(", ");
    throw credentialError("pkey-data", `auth.cert.pkey-data holds no private key (found: ${found})`);
  }
  if (block.label === "EC PRIVATE KEY" || block.label === "DSA PRIVATE KEY")
    throw notRsa("pkey-data", block.label.replace(" PRIVATE KEY", ""));
  if (block.headers.some((h) => /^Proc-Type:.*ENCRYPTED/i.test(h))) return decryptLegacyPem(block, requirePassphrase(passphrase));
  const node = parseDer(block.der);
  if (!node) throw notAKey();
  switch (keyShape(node)) {
    case "pkcs8":
      return rsaKeyFromPrivateKeyInfo(node, "pkey-data");
    case "pkcs1":
      return rsaKeyFromPrivateKeyInfo(forge.pki.wrapRsaPrivateKey(node), "pkey-data");
    case "encrypted-pkcs8":
      return rsaKeyFromPrivateKeyInfo(decryptPkcs8(node, requirePassphrase(passphrase)), "pkey-data");
    case "ec":
      throw notRsa("pkey-data", "EC");
    default:
      throw notAKey();
  }
}
