// The sandbox SII's view of a certificate presented to it: issued by the sandbox CA, valid now,
// and carrying a RUT. Anything else is a certificate the SII does not know.
import { certificateParts, readCertificate } from "../certificates/certificate.ts";
import { readDerBlocks } from "../certificates/pem.ts";
import { base64ToBytes, bytesToBase64Url } from "../lib/encoding.ts";
import type { CertificateCheck } from "./soap.ts";

/** RSASSA-PKCS1-v1_5 signature algorithms (RFC 8017 appendix A.2.4) and their hashes. */
const SIGNATURE_HASHES: Record<string, string> = {
  "1.2.840.113549.1.1.5": "SHA-1",
  "1.2.840.113549.1.1.11": "SHA-256",
  "1.2.840.113549.1.1.12": "SHA-384",
  "1.2.840.113549.1.1.13": "SHA-512",
};

/** Whether the CA's key verifies the certificate's signature over its TBSCertificate. */
async function issuedBy(caSpki: Uint8Array<ArrayBuffer>, der: Uint8Array): Promise<boolean> {
  const parts = certificateParts(der);
  const hash = parts ? SIGNATURE_HASHES[parts.signatureAlgorithm] : undefined;
  if (!parts || !hash) return false;
  try {
    const key = await crypto.subtle.importKey("spki", caSpki, { name: "RSASSA-PKCS1-v1_5", hash }, false, ["verify"]);
    return await crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, parts.signature, parts.tbs);
  } catch {
    return false;
  }
}

export function sandboxCertificateCheck(caPem: string, now: () => number = Date.now) {
  const caDer = readDerBlocks(caPem)?.[0]?.der;
  const caSpki = caDer ? certificateParts(caDer)?.spki : undefined;
  if (!caSpki) throw new Error("the sandbox CA certificate is not readable");
  return async (certificateBase64: string): Promise<CertificateCheck> => {
    let der: Uint8Array<ArrayBuffer>;
    try {
      der = base64ToBytes(certificateBase64);
    } catch {
      return { ok: false, reason: "Certificado no valido" };
    }
    const read = readCertificate(der);
    if (!read.ok) return { ok: false, reason: "Certificado no valido" };
    const cert = read.certificate;
    const at = new Date(now());
    if (!(await issuedBy(caSpki, der))) return { ok: false, reason: "Certificado no existe" };
    if (cert.notBefore > at || cert.notAfter < at) return { ok: false, reason: "Certificado vencido o aun no vigente" };
    if (!cert.rut) return { ok: false, reason: "Certificado sin RUT" };
    const publicKey = await crypto.subtle.importKey(
      "jwk",
      { kty: "RSA", n: bytesToBase64Url(cert.modulus), e: bytesToBase64Url(cert.exponent), alg: "RS1", ext: true },
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" },
      false,
      ["verify"],
    );
    return { ok: true, rut: cert.rut, publicKey };
  };
}
