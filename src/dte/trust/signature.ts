// Checks that an issuer's key signed a certificate: the signature over the TBSCertificate (RFC 5280
// §4.1.1.3), with the algorithms WebCrypto has: RSA PKCS#1 v1.5 and RSASSA-PSS (RFC 4055) with
// SHA-1/256/384/512, ECDSA on P-256/P-384/P-521 (RFC 5758).

import { type Asn1, children, integerOf, isType, oidOf, parseDer, TAG, unsignedBytes } from "../../certificates/asn1.ts";
import type { CertificateLinks } from "../../certificates/certificate.ts";
import { concatBytes } from "../../lib/encoding.ts";

export type SignatureCheck = "valid" | "invalid" | { unsupported: string };

const RSA_PKCS1: Record<string, string> = {
  "1.2.840.113549.1.1.5": "SHA-1",
  "1.2.840.113549.1.1.11": "SHA-256",
  "1.2.840.113549.1.1.12": "SHA-384",
  "1.2.840.113549.1.1.13": "SHA-512",
};
const ECDSA: Record<string, string> = {
  "1.2.840.10045.4.1": "SHA-1",
  "1.2.840.10045.4.3.2": "SHA-256",
  "1.2.840.10045.4.3.3": "SHA-384",
  "1.2.840.10045.4.3.4": "SHA-512",
};
const HASHES: Record<string, string> = {
  "1.3.14.3.2.26": "SHA-1",
  "2.16.840.1.101.3.4.2.1": "SHA-256",
  "2.16.840.1.101.3.4.2.2": "SHA-384",
  "2.16.840.1.101.3.4.2.3": "SHA-512",
};
/** Named curves and the byte length of their coordinates (r and s in WebCrypto's raw form). */
const CURVES: Record<string, { name: string; size: number }> = {
  "1.2.840.10045.3.1.7": { name: "P-256", size: 32 },
  "1.3.132.0.34": { name: "P-384", size: 48 },
  "1.3.132.0.35": { name: "P-521", size: 66 },
};
const RSASSA_PSS = "1.2.840.113549.1.1.10";
const MGF1 = "1.2.840.113549.1.1.8";
const EC_PUBLIC_KEY = "1.2.840.10045.2.1";

/** Names given in `unsupported` for algorithms seen in old Chilean certificates. */
const KNOWN_UNSUPPORTED: Record<string, string> = {
  "1.2.840.113549.1.1.4": "MD5 with RSA",
  "1.2.840.113549.1.1.2": "MD2 with RSA",
  "1.2.840.113549.1.1.14": "SHA-224 with RSA",
};

/**
 * RSASSA-PSS-params (RFC 4055 §3.1): hash [0] (default SHA-1), MGF1 [1] with the same hash (WebCrypto
 * knows no other), saltLength [2] (default 20); null when they ask for something WebCrypto cannot do.
 */
function pssParameters(parameters: Uint8Array | null): { hash: string; saltLength: number } | null {
  const fields = parameters ? (parseDer(parameters)?.children ?? []) : [];
  const field = (n: number): Asn1 | undefined => fields.find((f) => f.tagClass === 2 && f.tag === n)?.children[0];
  const hashOid = oidOf(children(field(0))[0]);
  const hash = hashOid ? HASHES[hashOid] : "SHA-1";
  const mgf = field(1);
  const mgfHashOid = mgf ? oidOf(children(children(mgf)[1])[0]) : "1.3.14.3.2.26";
  if (!hash || (mgf && oidOf(children(mgf)[0]) !== MGF1) || !mgfHashOid || HASHES[mgfHashOid] !== hash) return null;
  const saltLength = field(2) ? integerOf(field(2)) : 20;
  return saltLength !== null && saltLength >= 0 && saltLength <= 1024 ? { hash, saltLength } : null;
}

/** ECDSA-Sig-Value (SEQUENCE { r, s }) as WebCrypto's r||s, each left-padded to the curve's size. */
function rawEcdsaSignature(der: Uint8Array, size: number): Uint8Array<ArrayBuffer> | null {
  const sequence = parseDer(der);
  if (!sequence || !isType(sequence, TAG.SEQUENCE)) return null;
  const [r, s] = children(sequence).map(unsignedBytes);
  if (!r || !s || r.length > size || s.length > size) return null;
  const pad = (n: Uint8Array) => concatBytes([new Uint8Array(size - n.length), n]);
  return concatBytes([pad(r), pad(s)]);
}

/** The curve of an EC SubjectPublicKeyInfo (namedCurve parameters), if WebCrypto has it. */
function ecCurve(spki: Uint8Array): { name: string; size: number } | null {
  const algorithm = children(parseDer(spki) ?? undefined)[0];
  const [keyType, curve] = children(algorithm);
  if (oidOf(keyType) !== EC_PUBLIC_KEY) return null;
  const curveOid = oidOf(curve);
  return (curveOid && CURVES[curveOid]) || null;
}

async function verifyWith(
  algorithm: SubtleCryptoImportKeyAlgorithm,
  verify: string | SubtleCryptoSignAlgorithm,
  spki: Uint8Array<ArrayBuffer>,
  signature: Uint8Array<ArrayBuffer>,
  data: Uint8Array<ArrayBuffer>,
): Promise<SignatureCheck> {
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey("spki", spki, algorithm, false, ["verify"]);
  } catch {
    // The issuer's key is not of the kind its signature algorithm names (or WebCrypto cannot read it).
    return "invalid";
  }
  try {
    return (await crypto.subtle.verify(verify, key, signature, data)) ? "valid" : "invalid";
  } catch {
    return "invalid";
  }
}

/** Whether `issuerSpki` (a SubjectPublicKeyInfo's DER) signed `certificate`. */
export async function verifyCertificateSignature(
  certificate: CertificateLinks,
  issuerSpki: Uint8Array<ArrayBuffer>,
): Promise<SignatureCheck> {
  const { signatureAlgorithm: oid, signature, tbs } = certificate;
  const rsaHash = RSA_PKCS1[oid];
  if (rsaHash) return verifyWith({ name: "RSASSA-PKCS1-v1_5", hash: rsaHash }, "RSASSA-PKCS1-v1_5", issuerSpki, signature, tbs);
  if (oid === RSASSA_PSS) {
    const pss = pssParameters(certificate.signatureParameters);
    if (!pss) return { unsupported: "RSASSA-PSS with parameters WebCrypto does not offer" };
    return verifyWith({ name: "RSA-PSS", hash: pss.hash }, { name: "RSA-PSS", saltLength: pss.saltLength }, issuerSpki, signature, tbs);
  }
  const ecHash = ECDSA[oid];
  if (ecHash) {
    const curve = ecCurve(issuerSpki);
    if (!curve) return "invalid";
    const raw = rawEcdsaSignature(signature, curve.size);
    if (!raw) return "invalid";
    return verifyWith({ name: "ECDSA", namedCurve: curve.name }, { name: "ECDSA", hash: ecHash }, issuerSpki, raw, tbs);
  }
  return { unsupported: KNOWN_UNSUPPORTED[oid] ?? `signature algorithm ${oid}` };
}
