// An encrypted PKCS#8 key at any iteration count, derived natively (forge's JavaScript PBKDF2 takes
// about a second at 100 000): for the key-derivation ceiling and its fee.
import forge from "node-forge";

/** `keyPem` encrypted as PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC) at `iterations`, built with WebCrypto (RFC 8018 A.2, A.4). */
export async function pbes2KeyPem(keyPem: string, passphrase: string, iterations: number): Promise<string> {
  const { asn1 } = forge;
  const der = forge.asn1.toDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(forge.pki.privateKeyFromPem(keyPem))));
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(16));
  const password = await crypto.subtle.importKey("raw", new TextEncoder().encode(passphrase), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", salt, iterations, hash: "SHA-256" }, password, 256);
  const key = await crypto.subtle.importKey("raw", bits, "AES-CBC", false, ["encrypt"]);
  const data = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-CBC", iv },
      key,
      Uint8Array.from(der.getBytes(), (c) => c.charCodeAt(0)),
    ),
  );
  const binary = (bytes: Uint8Array) => String.fromCharCode(...bytes);
  const { SEQUENCE, OID, OCTETSTRING, INTEGER, NULL } = asn1.Type;
  const seq = (...value: forge.asn1.Asn1[]) => asn1.create(asn1.Class.UNIVERSAL, SEQUENCE, true, value);
  const oid = (dotted: string) => asn1.create(asn1.Class.UNIVERSAL, OID, false, asn1.oidToDer(dotted).getBytes());
  const octets = (bytes: Uint8Array) => asn1.create(asn1.Class.UNIVERSAL, OCTETSTRING, false, binary(bytes));
  const encrypted = seq(
    seq(
      oid("1.2.840.113549.1.5.13"),
      seq(
        seq(
          oid("1.2.840.113549.1.5.12"),
          seq(
            octets(salt),
            asn1.create(asn1.Class.UNIVERSAL, INTEGER, false, asn1.integerToDer(iterations).getBytes()),
            seq(oid("1.2.840.113549.2.9"), asn1.create(asn1.Class.UNIVERSAL, NULL, false, "")),
          ),
        ),
        seq(oid("2.16.840.1.101.3.4.1.42"), octets(iv)),
      ),
    ),
    octets(data),
  );
  return forge.pki.encryptedPrivateKeyToPem(encrypted);
}
