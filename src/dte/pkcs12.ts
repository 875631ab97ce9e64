// PKCS#12 (.pfx/.p12) through node-forge: WebCrypto cannot read it, and forge is the one library
// that opens both the legacy files (RC2-40 certificates, 3DES key, SHA-1 MAC: Chilean CAs, old
// OpenSSL, Windows) and OpenSSL 3's default (PBES2 with AES-256-CBC, SHA-256 MAC). forge checks the
// MAC first whenever there is one, so a wrong passphrase is told apart from a damaged file.

import forge from "node-forge";
import { encodeDer, parseDer } from "./asn1.ts";
import { credentialError } from "./credential-error.ts";
import { isKdfRefusal, withKdfBudget } from "./kdf-limit.ts";
import { decodeBase64 } from "./pem.ts";
import { type RsaPrivateKey, rsaKeyFromForge, rsaKeyFromPrivateKeyInfo } from "./private-key.ts";

export interface PfxContents {
  keys: RsaPrivateKey[];
  /** DER of every certificate bag: the holder's and usually its CA chain. */
  certificates: Uint8Array<ArrayBuffer>[];
}

const notPfx = () => credentialError("pfx-data", "auth.cert.pfx-data is not a PKCS#12 (.pfx/.p12) file");

/** forge reports everything as plain Errors: sort them by wording (forge 1.4.3; the tests pin it). */
function openFailure(error: unknown) {
  if (isKdfRefusal(error)) return error;
  const message = error instanceof Error ? error.message : "";
  if (/MAC could not be verified/.test(message)) {
    return credentialError("passphrase", "wrong passphrase: the integrity check (MAC) of auth.cert.pfx-data failed with it");
  }
  if (/wrong password|Failed to decrypt/i.test(message)) {
    return credentialError("passphrase", "wrong passphrase: the contents of auth.cert.pfx-data could not be decrypted with it");
  }
  // forge tags "unsupported algorithm" errors with the OID.
  if (error instanceof Error && "oid" in error) {
    return credentialError("pfx-data", `auth.cert.pfx-data uses an unsupported algorithm (${String(error.oid)})`);
  }
  return notPfx();
}

export function readPfx(pfxBase64: string, passphrase: string | undefined): PfxContents {
  const bytes = decodeBase64(pfxBase64);
  if (!bytes) throw credentialError("pfx-data", "auth.cert.pfx-data is not base64");
  const root = parseDer(bytes);
  if (!root) throw notPfx();
  if (passphrase === undefined) throw credentialError("passphrase", "auth.cert.passphrase is required to open auth.cert.pfx-data");

  let pfx: forge.pkcs12.Pkcs12Pfx;
  try {
    // strict = false: tolerate BER (Windows exports are not always DER). The MAC is checked anyway.
    // Every derivation (MAC, encrypted safes, shrouded keys) is charged to one budget, refused before it runs.
    pfx = withKdfBudget("pfx-data", () => forge.pkcs12.pkcs12FromAsn1(root, false, passphrase));
  } catch (error) {
    throw openFailure(error);
  }

  const { certBag, keyBag, pkcs8ShroudedKeyBag } = forge.pki.oids;
  const contents: PfxContents = { keys: [], certificates: [] };
  for (const { safeBags } of pfx.safeContents) {
    for (const bag of safeBags) {
      if (bag.type === certBag) {
        // forge keeps the parsed TBSCertificate, so re-encoding gives back the original bytes;
        // certificates it cannot parse (non-RSA keys) stay as ASN.1.
        contents.certificates.push(encodeDer(bag.cert ? forge.pki.certificateToAsn1(bag.cert) : bag.asn1));
      } else if (bag.type === keyBag || bag.type === pkcs8ShroudedKeyBag) {
        // forge parses RSA keys only; others stay as their PrivateKeyInfo and are refused by name.
        contents.keys.push(bag.key ? rsaKeyFromForge(bag.key) : rsaKeyFromPrivateKeyInfo(bag.asn1, "pfx-data"));
      }
    }
  }
  return contents;
}
