// The SII's XMLDSig profile (xmldsignature_v10.xsd): RSA-SHA1, inclusive C14N, one Reference with
// one Transform, KeyInfo = KeyValue then X509Data. The SignedInfo is built as its canonical text,
// so what is signed is exactly what is written.
import { signRsa } from "../../lib/crypto.ts";
import { bytesToBase64 } from "../../lib/encoding.ts";

export { sha1Base64 } from "../../lib/crypto.ts";

export const DSIG_NS = "http://www.w3.org/2000/09/xmldsig#";
const C14N = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315";
const RSA_SHA1 = "http://www.w3.org/2000/09/xmldsig#rsa-sha1";
const SHA1 = "http://www.w3.org/2000/09/xmldsig#sha1";
export const ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";

/** What signing needs of a taxpayer's certificate credential. */
export interface XmlSigner {
  privateKey: CryptoKey;
  modulusBase64: string;
  exponentBase64: string;
  certificateBase64: string;
}

const utf8 = new TextEncoder();

/** Canonical SignedInfo. `extraNamespaces` are declarations inherited in context (e.g. xmlns:xsi). */
export function signedInfo(uri: string, digest: string, transform = ENVELOPED, extraNamespaces = ""): string {
  return (
    `<SignedInfo xmlns="${DSIG_NS}"${extraNamespaces}>` +
    `<CanonicalizationMethod Algorithm="${C14N}"></CanonicalizationMethod>` +
    `<SignatureMethod Algorithm="${RSA_SHA1}"></SignatureMethod>` +
    `<Reference URI="${uri}"><Transforms><Transform Algorithm="${transform}"></Transform></Transforms>` +
    `<DigestMethod Algorithm="${SHA1}"></DigestMethod><DigestValue>${digest}</DigestValue></Reference>` +
    "</SignedInfo>"
  );
}

/** The whole `<Signature>` element for a canonical SignedInfo. */
export async function signatureElement(signer: XmlSigner, canonicalSignedInfo: string): Promise<string> {
  const value = await signRsa(signer.privateKey, utf8.encode(canonicalSignedInfo));
  return (
    `<Signature xmlns="${DSIG_NS}">${canonicalSignedInfo}` +
    `<SignatureValue>${bytesToBase64(value)}</SignatureValue>` +
    `<KeyInfo><KeyValue><RSAKeyValue><Modulus>${signer.modulusBase64}</Modulus><Exponent>${signer.exponentBase64}</Exponent></RSAKeyValue></KeyValue>` +
    `<X509Data><X509Certificate>${signer.certificateBase64}</X509Certificate></X509Data></KeyInfo></Signature>`
  );
}
