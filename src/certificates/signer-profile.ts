// Whether a certificate may sign a DTE as the SII takes signers (docs/dte-engine.md §3.7): its
// own key (not a CA's), allowed to sign by its keyUsage and extendedKeyUsage, no critical extension
// this code cannot judge, an RSA key long enough, and one holder's RUT. The same rules refuse a
// received document's signer (verify/signer.ts) and a caller's certificate before generar signs
// (generate.ts, and the seed a login signs).
import { base64ToBytes } from "../lib/encoding.ts";
import { certificateLinks, readCertificate } from "./certificate.ts";
import { credentialError } from "./credential-error.ts";

/** What is wrong with a signer's certificate (each a phrase after "the certificate …"), and what only deserves a note. */
export interface SignerProfile {
  refusals: string[];
  warnings: string[];
}

/**
 * RSA sizes. No SII text states a minimum: DTEs the SII accepted were signed with 1024-bit keys
 * (E-CertChile certificates of 2017–2018 in cordada/lib-cl-sii-python
 * `src/tests/test_data/sii-crypto/DTE--76354771-K--33--170-cert.pem` and
 * `DTE--96670340-7--61--110616-cert.pem`), while Acepta's and E-Sign's of the same years
 * (`DTE--76399752-9--33--25568-cert.pem`, `DTE--60910000-1--33--2336600-cert.pem`) are 2048-bit,
 * the size NIST SP 800-131A requires for signatures since 2014. Inferred: 2048 and more pass, 1024
 * to 2047 pass with a warning (the SII still accepts them), below 1024 is refused.
 */
export const MIN_RSA_BITS = 2048;
export const LEGACY_RSA_BITS = 1024;

/**
 * extendedKeyUsage purposes that allow signing documents (RFC 5280 §4.2.1.12: when the extension
 * is present the key serves only the purposes listed). Real DTE signers' certificates list
 * clientAuth and emailProtection (the cl-sii fixtures above); codeSigning vouches for software,
 * serverAuth for TLS servers, neither for a document.
 */
const SIGNING_PURPOSES = new Set([
  "2.5.29.37.0", // anyExtendedKeyUsage
  "1.3.6.1.5.5.7.3.2", // clientAuth
  "1.3.6.1.5.5.7.3.4", // emailProtection
  "1.3.6.1.5.5.7.3.36", // documentSigning (RFC 9336)
  "1.3.6.1.4.1.311.10.3.12", // Microsoft document signing
  "1.2.840.113583.1.1.5", // Adobe authentic documents
]);
const PURPOSE_NAMES: Record<string, string> = {
  "1.3.6.1.5.5.7.3.1": "serverAuth",
  "1.3.6.1.5.5.7.3.3": "codeSigning",
  "1.3.6.1.5.5.7.3.8": "timeStamping",
  "1.3.6.1.5.5.7.3.9": "OCSPSigning",
};

/**
 * Extensions a signer's certificate may mark critical: those checked here, and those that ask
 * nothing of a verifier of a document's signature (names, key ids, policies, where CRLs are).
 * RFC 5280 §4.2: a certificate with a critical extension the verifier does not recognise is refused.
 */
const KNOWN_EXTENSIONS = new Set([
  "2.5.29.14", // subjectKeyIdentifier
  "2.5.29.15", // keyUsage
  "2.5.29.17", // subjectAltName
  "2.5.29.18", // issuerAltName
  "2.5.29.19", // basicConstraints
  "2.5.29.31", // cRLDistributionPoints
  "2.5.29.32", // certificatePolicies
  "2.5.29.35", // authorityKeyIdentifier
  "2.5.29.37", // extendedKeyUsage
  "2.5.29.46", // freshestCRL
  "1.3.6.1.5.5.7.1.1", // authorityInfoAccess
]);

/** The bit length of an unsigned big-endian integer without leading zero bytes. */
function bitLength(bytes: Uint8Array): number {
  const first = bytes[0] ?? 0;
  return bytes.length === 0 ? 0 : (bytes.length - 1) * 8 + (32 - Math.clz32(first));
}

/** Whether the certificate `der` may sign DTEs; `refusals` empty when it may. */
export function signerProfile(der: Uint8Array): SignerProfile {
  const own = new Uint8Array(der);
  const read = readCertificate(own);
  const links = certificateLinks(own);
  if (!read.ok || !links) {
    const refusal = !read.ok && read.problem === "not-rsa" ? `has a ${read.algorithm} key; the SII signs with RSA` : "is not readable";
    return { refusals: [refusal], warnings: [] };
  }
  const { certificate } = read;
  const refusals: string[] = [];
  const warnings: string[] = [];
  if (links.isCa) refusals.push("is a CA certificate (basicConstraints cA is true): a CA issues certificates, it does not sign documents");
  if (links.keyUsage && !links.keyUsage.has("digitalSignature") && !links.keyUsage.has("nonRepudiation")) {
    const usages = [...links.keyUsage].join(", ") || "nothing";
    refusals.push(`has a keyUsage (${usages}) that allows neither digitalSignature nor nonRepudiation: its key may not sign`);
  }
  if (links.extKeyUsage && !links.extKeyUsage.some((purpose) => SIGNING_PURPOSES.has(purpose))) {
    const purposes = links.extKeyUsage.map((oid) => PURPOSE_NAMES[oid] ?? oid).join(", ") || "nothing";
    refusals.push(`has an extendedKeyUsage (${purposes}) that does not allow signing documents`);
  }
  for (const oid of links.criticalExtensions.filter((oid) => !KNOWN_EXTENSIONS.has(oid)))
    refusals.push(`has a critical extension ${oid} that cannot be judged (RFC 5280 §4.2: such a certificate is refused)`);
  const bits = bitLength(certificate.modulus);
  if (bits < LEGACY_RSA_BITS)
    refusals.push(`has an RSA key of ${bits} bits; the SII's signers use ${MIN_RSA_BITS} (${LEGACY_RSA_BITS} at the least)`);
  else if (bits < MIN_RSA_BITS)
    warnings.push(
      `the signer's RSA key is ${bits} bits: accepted, as the SII still takes ${LEGACY_RSA_BITS}-bit signers, but ${MIN_RSA_BITS} is today's minimum`,
    );
  if (certificate.ruts.length === 0)
    refusals.push("names no RUT (neither a subjectAltName otherName 1.3.6.1.4.1.8321.1 nor a subject serialNumber holds one)");
  if (certificate.ruts.length > 1) refusals.push(`names more than one RUT (${certificate.ruts.join(", ")}): whose it is stays open`);
  return { refusals, warnings };
}

/**
 * The caller's certificate (`auth.cert`, as XMLDSig's base64 DER) before it signs anything: one
 * the SII would refuse is a 400 on auth.cert naming why; otherwise its warnings (a 1024-bit key).
 */
export function callerSignerWarnings(certificateBase64: string): string[] {
  const { refusals, warnings } = signerProfile(base64ToBytes(certificateBase64));
  if (refusals.length)
    throw credentialError(null, `the certificate in auth.cert ${refusals.join("; it ")}: the SII would not take its signature`);
  return warnings;
}
