// CAF files as the SII grants them at the end of the folios flows (docs/sii-services.md §3.5): a fresh 512-bit RSA key (e = 3) per
// range, the DA signed SHA1withRSA with the sandbox's own CAF-signing key (IDK 900), the whole
// file ISO-8859-1. Keys come from WebCrypto; RSASK is the key's PKCS#1 form, RSAPUBK its SPKI.
import { children, octetsOf, parseDer, rsaPublicNumbers } from "../certificates/asn1.ts";
import { readDerBlocks, toPem } from "../certificates/pem.ts";
import { base64ToBytes, bytesToBase64 } from "../lib/encoding.ts";
import { encodeLatin1 } from "../lib/latin1.ts";
import { escapeXml } from "../lib/xml.ts";
import { SANDBOX_CAF_SIGNER } from "./credentials/index.ts";

let signingKey: Promise<CryptoKey> | undefined;

function cafSigningKey(): Promise<CryptoKey> {
  signingKey ??= crypto.subtle.importKey(
    "pkcs8",
    base64ToBytes(SANDBOX_CAF_SIGNER.keyPem.replace(/-----[^-]+-----|\s+/g, "")),
    { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" },
    false,
    ["sign"],
  );
  return signingKey;
}

/** Modulus and exponent of a DER SPKI holding an RSA key. */
function rsaNumbersOf(spki: Uint8Array): { modulus: Uint8Array<ArrayBuffer>; exponent: Uint8Array<ArrayBuffer> } {
  const numbers = rsaPublicNumbers(parseDer(spki) ?? undefined);
  if (!numbers) throw new Error("not an RSA public key");
  return numbers;
}

let publicKey: { idk: string; modulus: Uint8Array; exponent: Uint8Array } | undefined;

/** The public half of the sandbox's CAF-signing key (what a verifier trusts for IDK 900 in sandbox mode); read once. */
export function sandboxCafPublicKey(): { idk: string; modulus: Uint8Array; exponent: Uint8Array } {
  if (publicKey) return publicKey;
  const spki = readDerBlocks(SANDBOX_CAF_SIGNER.publicKeyPem)?.[0]?.der;
  if (!spki) throw new Error("the sandbox CAF-signing public key is not readable");
  publicKey = { idk: String(SANDBOX_CAF_SIGNER.idk), ...rsaNumbersOf(spki) };
  return publicKey;
}

export interface CafRequest {
  rut: string;
  razonSocial: string;
  tipo: number;
  desde: number;
  hasta: number;
  /** YYYY-MM-DD */
  fecha: string;
}

/** The CAF file's text; every character is below U+0100, so it encodes to ISO-8859-1 as is. */
export async function buildCaf(request: CafRequest): Promise<string> {
  const keys = (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 512, publicExponent: Uint8Array.of(3), hash: "SHA-1" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  const spki = new Uint8Array((await crypto.subtle.exportKey("spki", keys.publicKey)) as ArrayBuffer);
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey("pkcs8", keys.privateKey)) as ArrayBuffer);
  // PrivateKeyInfo's privateKey OCTET STRING is the PKCS#1 RSAPrivateKey (RFC 5208 §5).
  const pkcs1 = octetsOf(children(parseDer(pkcs8) ?? undefined)[2]);
  if (!pkcs1) throw new Error("WebCrypto exported an unreadable PKCS#8 key");
  const { modulus, exponent } = rsaNumbersOf(spki);
  const da =
    `<DA><RE>${request.rut}</RE><RS>${escapeXml(request.razonSocial.slice(0, 40))}</RS><TD>${request.tipo}</TD>` +
    `<RNG><D>${request.desde}</D><H>${request.hasta}</H></RNG><FA>${request.fecha}</FA>` +
    `<RSAPK><M>${bytesToBase64(modulus)}</M><E>${bytesToBase64(exponent)}</E></RSAPK><IDK>${SANDBOX_CAF_SIGNER.idk}</IDK></DA>`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", await cafSigningKey(), encodeLatin1(da));
  return (
    '<?xml version="1.0" encoding="ISO-8859-1"?>\n<AUTORIZACION>\n<CAF version="1.0">\n' +
    `${da}\n<FRMA algoritmo="SHA1withRSA">${bytesToBase64(new Uint8Array(signature))}</FRMA>\n</CAF>\n` +
    `<RSASK>${toPem("RSA PRIVATE KEY", pkcs1).trim()}</RSASK>\n` +
    `<RSAPUBK>${toPem("PUBLIC KEY", spki).trim()}</RSAPUBK>\n</AUTORIZACION>\n`
  );
}
