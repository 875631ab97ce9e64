// CAF files as the SII grants them (docs/sii-services.md §3.5): a fresh 512-bit RSA key (e = 3) per
// range, the DA signed SHA1withRSA with the sandbox's own CAF-signing key (IDK 900), the whole
// file ISO-8859-1.
import forge from "node-forge";
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

let publicKey: { idk: string; modulus: Uint8Array; exponent: Uint8Array } | undefined;

/** The public half of the sandbox's CAF-signing key (what a verifier trusts for IDK 900 in sandbox mode); read once. */
export function sandboxCafPublicKey(): { idk: string; modulus: Uint8Array; exponent: Uint8Array } {
  if (publicKey) return publicKey;
  const key = forge.pki.publicKeyFromPem(SANDBOX_CAF_SIGNER.publicKeyPem) as forge.pki.rsa.PublicKey;
  const bytes = (n: forge.jsbn.BigInteger) => base64ToBytes(bigIntBase64(n));
  publicKey = { idk: String(SANDBOX_CAF_SIGNER.idk), modulus: bytes(key.n), exponent: bytes(key.e) };
  return publicKey;
}

/** Unsigned big-endian base64, as CAFs carry M and E. */
function bigIntBase64(n: forge.jsbn.BigInteger): string {
  const hex = n.toString(16);
  return forge.util.encode64(forge.util.hexToBytes(hex.length % 2 ? `0${hex}` : hex));
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
  const keys = forge.pki.rsa.generateKeyPair({ bits: 512, e: 3 });
  const da =
    `<DA><RE>${request.rut}</RE><RS>${escapeXml(request.razonSocial.slice(0, 40))}</RS><TD>${request.tipo}</TD>` +
    `<RNG><D>${request.desde}</D><H>${request.hasta}</H></RNG><FA>${request.fecha}</FA>` +
    `<RSAPK><M>${bigIntBase64(keys.publicKey.n)}</M><E>${bigIntBase64(keys.publicKey.e)}</E></RSAPK><IDK>${SANDBOX_CAF_SIGNER.idk}</IDK></DA>`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", await cafSigningKey(), encodeLatin1(da));
  return (
    '<?xml version="1.0" encoding="ISO-8859-1"?>\n<AUTORIZACION>\n<CAF version="1.0">\n' +
    `${da}\n<FRMA algoritmo="SHA1withRSA">${bytesToBase64(new Uint8Array(signature))}</FRMA>\n</CAF>\n` +
    `<RSASK>${forge.pki.privateKeyToPem(keys.privateKey).trim()}</RSASK>\n` +
    `<RSAPUBK>${forge.pki.publicKeyToPem(keys.publicKey).trim()}</RSAPUBK>\n</AUTORIZACION>\n`
  );
}
