// RSA private keys in every form OpenSSL writes, normalized to unencrypted PKCS#8, the only form
// WebCrypto imports: PKCS#8, PKCS#1 (wrapped here; workerd accepts it raw, Node does not),
// encrypted PKCS#8 (PBES2 or PKCS#12 PBE) and old OpenSSL encrypted PKCS#1 (Proc-Type headers).
import forge from "node-forge";
import { type Asn1, children, encodeDer, isType, keyAlgorithmName, oidOf, parseDer, RSA_ENCRYPTION } from "./asn1.ts";
import { type CertField, credentialError } from "./credential-error.ts";
import { isKdfRefusal, withKdfBudget } from "./kdf-limit.ts";
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
