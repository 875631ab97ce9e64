// The sandbox SII's view of a certificate presented to it: issued by the sandbox CA, valid now,
// and carrying a RUT. Anything else is a certificate the SII does not know.
import forge from "node-forge";
import { bytesToBinary } from "../dte/asn1.ts";
import { readCertificate } from "../dte/certificate.ts";
import { base64ToBytes, bytesToBase64Url } from "../lib/encoding.ts";
import type { CertificateCheck } from "./soap.ts";

function issuedBy(ca: forge.pki.Certificate, der: Uint8Array): boolean {
  try {
    return ca.verify(forge.pki.certificateFromAsn1(forge.asn1.fromDer(bytesToBinary(der))));
  } catch {
    return false;
  }
}

export function sandboxCertificateCheck(caPem: string, now: () => number = Date.now) {
  const ca = forge.pki.certificateFromPem(caPem);
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
    if (!issuedBy(ca, der)) return { ok: false, reason: "Certificado no existe" };
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
