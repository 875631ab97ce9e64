// Reads what signing needs from an X.509 certificate: names, validity, RSA public key and the
// holder's RUT. node-forge does the parsing; it hands UTF8String attributes back as raw bytes, so
// names are decoded here.

import forge from "node-forge";
import { parseRut } from "../lib/rut.ts";
import { type Asn1, bigIntegerBytes, binaryToBytes, children, isType, keyAlgorithmName, oidOf, parseDer, RSA_ENCRYPTION } from "./asn1.ts";

/** Chilean CAs put the holder's RUT in subjectAltName as otherName with this type (IA5String). */
export const RUT_OTHER_NAME = "1.3.6.1.4.1.8321.1";
const SERIAL_NUMBER = "2.5.4.5";

export interface RsaCertificate {
  der: Uint8Array<ArrayBuffer>;
  subjectName: string;
  issuerName: string;
  notBefore: Date;
  notAfter: Date;
  /** The RUT of the holder, canonical `12345678-9`; null when the certificate carries none. */
  rut: string | null;
  /** Unsigned big-endian, no leading zero byte (as XMLDSig RSAKeyValue wants them). */
  modulus: Uint8Array<ArrayBuffer>;
  exponent: Uint8Array<ArrayBuffer>;
  /** Compared with the private key's to pair them. */
  modulusHex: string;
}

export type CertificateRead =
  | { ok: true; certificate: RsaCertificate }
  | { ok: false; problem: "not-x509" }
  | { ok: false; problem: "not-rsa"; algorithm: string };

/** The SubjectPublicKeyInfo algorithm OID, or null when the structure is not a certificate. */
function publicKeyAlgorithm(root: Asn1): string | null {
  const [tbs, signatureAlgorithm, signature] = children(root);
  if (!isType(tbs, forge.asn1.Type.SEQUENCE) || !isType(signatureAlgorithm, forge.asn1.Type.SEQUENCE)) return null;
  if (!isType(signature, forge.asn1.Type.BITSTRING)) return null;
  // TBSCertificate, without the [0] version: serial, signature, issuer, validity, subject, spki.
  const spki = children(tbs)[5];
  return oidOf(children(children(spki)[0])[0]);
}

type Name = forge.pki.Certificate["subject"];

function attributeText(attribute: forge.pki.CertificateField): string {
  const value = typeof attribute.value === "string" ? attribute.value : "";
  // forge types valueTagClass as a class, but it holds the universal type of the value.
  const tag: unknown = attribute.valueTagClass;
  if (tag !== forge.asn1.Type.UTF8) return value;
  return new TextDecoder().decode(binaryToBytes(value));
}

function field(name: Name, type: string): string | null {
  const attribute = name.attributes.find((a) => a.type === type);
  return attribute ? attributeText(attribute) : null;
}

/** The CN, else the whole name as `C=CL, O=…`. */
function displayName(name: Name): string {
  const cn = field(name, "2.5.4.3");
  if (cn) return cn;
  return name.attributes.map((a) => `${a.shortName ?? a.name ?? a.type}=${attributeText(a)}`).join(", ");
}

/** The string inside an otherName's `[0] EXPLICIT` value, whatever string type the CA used. */
function otherNameText(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  const [typeId, explicit] = value as Asn1[];
  if (oidOf(typeId) !== RUT_OTHER_NAME || !explicit || !Array.isArray(explicit.value)) return null;
  const inner = explicit.value[0];
  return inner && typeof inner.value === "string" ? inner.value : null;
}

function certificateRut(cert: forge.pki.Certificate): string | null {
  const candidates: string[] = [];
  for (const extension of cert.extensions as { name?: string; altNames?: { type: number; value: unknown }[] }[]) {
    if (extension.name !== "subjectAltName") continue;
    for (const altName of extension.altNames ?? []) {
      const text = altName.type === 0 ? otherNameText(altName.value) : null;
      if (text) candidates.push(text);
    }
  }
  const serial = field(cert.subject, SERIAL_NUMBER);
  if (serial) candidates.push(serial);
  for (const candidate of candidates) {
    // Chilean CAs zero-pad the RUT (`07880442-4`).
    const parsed = parseRut(candidate.trim().replace(/^0+(?=\d)/, ""));
    if (parsed.ok) return parsed.rut;
  }
  return null;
}

export function readCertificate(der: Uint8Array<ArrayBuffer>): CertificateRead {
  const root = parseDer(der);
  const algorithm = root ? publicKeyAlgorithm(root) : null;
  if (!root || !algorithm) return { ok: false, problem: "not-x509" };
  if (algorithm !== RSA_ENCRYPTION) return { ok: false, problem: "not-rsa", algorithm: keyAlgorithmName(algorithm) };
  let cert: forge.pki.Certificate;
  try {
    cert = forge.pki.certificateFromAsn1(root);
  } catch {
    return { ok: false, problem: "not-x509" };
  }
  const publicKey = cert.publicKey as forge.pki.rsa.PublicKey;
  return {
    ok: true,
    certificate: {
      der,
      subjectName: displayName(cert.subject),
      issuerName: displayName(cert.issuer),
      notBefore: cert.validity.notBefore,
      notAfter: cert.validity.notAfter,
      rut: certificateRut(cert),
      modulus: bigIntegerBytes(publicKey.n),
      exponent: bigIntegerBytes(publicKey.e),
      modulusHex: publicKey.n.toString(16),
    },
  };
}
