// CrSeed and GetTokenFromSeed as the SII answers them: Axis RPC envelopes whose return value is
// an escaped `SII:RESPUESTA` document (docs/sii-services.md §2.1). The signed seed is really verified.

import { randomBytes } from "../lib/crypto.ts";
import { base64ToBytes } from "../lib/encoding.ts";
import { elementInner, elementText, escapeXml, stripXmlDeclaration } from "../lib/xml.ts";
import type { IssuedToken, SandboxState } from "./state.ts";

export const SEED_TTL_MS = 2 * 60 * 1000;
export const TOKEN_TTL_MS = 60 * 60 * 1000;

export type CertificateCheck = { ok: true; rut: string; publicKey: CryptoKey } | { ok: false; reason: string };

export function respuesta(body: string, estado: string, glosa?: string): string {
  const hdr = `<ESTADO>${estado}</ESTADO>${glosa === undefined ? "" : `<GLOSA>${escapeXml(glosa)}</GLOSA>`}`;
  return `<?xml version="1.0" encoding="UTF-8"?><SII:RESPUESTA xmlns:SII="http://www.sii.cl/XMLSchema"><SII:RESP_BODY>${body}</SII:RESP_BODY><SII:RESP_HDR>${hdr}</SII:RESP_HDR></SII:RESPUESTA>`;
}

export function soapReturn(operation: string, inner: string): Response {
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    `<soapenv:Body><ns1:${operation}Response soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://DefaultNamespace">` +
    `<ns1:${operation}Return xsi:type="xsd:string">${escapeXml(inner)}</ns1:${operation}Return></ns1:${operation}Response></soapenv:Body></soapenv:Envelope>`;
  return new Response(xml, { headers: { "content-type": "text/xml; charset=utf-8" } });
}

export function soapFault(message: string): Response {
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><soapenv:Fault>' +
    `<faultcode>soapenv:Server.userException</faultcode><faultstring>${escapeXml(message)}</faultstring></soapenv:Fault></soapenv:Body></soapenv:Envelope>`;
  return new Response(xml, { status: 500, headers: { "content-type": "text/xml; charset=utf-8" } });
}

function digits(count: number): string {
  return [...randomBytes(count)].map((b) => String(b % 10)).join("");
}

/** A fresh seed inside the SII's RESPUESTA (the SOAP service escapes it; the boleta service sends it bare). */
export function seedRespuesta(state: SandboxState, ambiente: "0" | "1", now: number): string {
  const seed = `${1 + ((randomBytes(1)[0] ?? 0) % 9)}${digits(11)}`;
  state.seeds.set(seed, { ambiente, expiresAt: now + SEED_TTL_MS });
  return respuesta(`<SEMILLA>${seed}</SEMILLA>`, "00");
}

export function issueSeed(state: SandboxState, ambiente: "0" | "1", now: number): Response {
  return soapReturn("getSeed", seedRespuesta(state, ambiente, now));
}

const utf8 = new TextEncoder();

/** Canonical form of the SignedInfo as sent: namespace made explicit, empty tags expanded. */
function canonicalSignedInfo(raw: string): string {
  const withNs = /^<SignedInfo\s[^>]*xmlns=/.test(raw)
    ? raw
    : raw.replace(/^<SignedInfo/, '<SignedInfo xmlns="http://www.w3.org/2000/09/xmldsig#"');
  return withNs.replace(/<([A-Za-z][\w:.-]*)((?:\s[^<>]*?)?)\s*\/>/g, "<$1$2></$1>");
}

async function sha1(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", utf8.encode(text)));
  return btoa(String.fromCharCode(...digest));
}

export async function issueToken(
  state: SandboxState,
  ambiente: "0" | "1",
  requestXml: string,
  now: number,
  checkCertificate: (certificateBase64: string) => Promise<CertificateCheck>,
): Promise<Response> {
  const signed = elementText(requestXml, "pszXml");
  if (!signed) return soapFault("No se encontro el parametro pszXml");
  return soapReturn("getToken", await tokenRespuesta(state, state.tokens, ambiente, signed, now, checkCertificate));
}

/**
 * The RESPUESTA to a signed seed: a new token in `tokens` when the seed is this SII's, unexpired,
 * and signed by a valid certificate (digest and signature really checked).
 */
export async function tokenRespuesta(
  state: SandboxState,
  tokens: Map<string, IssuedToken>,
  ambiente: "0" | "1",
  signed: string,
  now: number,
  checkCertificate: (certificateBase64: string) => Promise<CertificateCheck>,
): Promise<string> {
  const seed = elementText(signed, "Semilla") ?? "";
  const issued = state.seeds.get(seed);
  const fail = (estado: string, glosa: string) => respuesta("", estado, glosa);
  if (!issued || issued.ambiente !== ambiente || issued.expiresAt < now) return fail("-07", "Semilla invalida o expirada");

  const rawSignedInfo = /<SignedInfo[\s>][\s\S]*?<\/SignedInfo>/.exec(signed)?.[0];
  const signatureValue = elementText(signed, "SignatureValue");
  const certificate = elementText(signed, "X509Certificate");
  if (!rawSignedInfo || !signatureValue || !certificate) return fail("10", "Error Interno");
  const document = stripXmlDeclaration(signed).replace(/<Signature[\s>][\s\S]*<\/Signature>/, "");
  if (elementText(rawSignedInfo, "DigestValue") !== (await sha1(document))) return fail("10", "Error Interno");

  const cert = await checkCertificate(certificate.replace(/\s+/g, ""));
  if (!cert.ok) return fail("11", cert.reason);
  const valid = await crypto.subtle.verify(
    "RSASSA-PKCS1-v1_5",
    cert.publicKey,
    base64ToBytes(signatureValue.replace(/\s+/g, "")),
    utf8.encode(canonicalSignedInfo(rawSignedInfo)),
  );
  if (!valid) return fail("10", "Error Interno");

  state.seeds.delete(seed);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const token = [...randomBytes(13)].map((b) => alphabet[b % alphabet.length]).join("");
  tokens.set(token, { rut: cert.rut, ambiente, expiresAt: now + TOKEN_TTL_MS });
  return respuesta(`<TOKEN>${token}</TOKEN>`, "00", "Token Creado");
}

/** The operation a SOAP request calls: the first element inside Body, whatever its prefix. */
export function soapOperation(xml: string): string | null {
  const body = elementInner(xml, "Body");
  return body ? (/<(?:[\w.-]+:)?([\w.-]+)[\s/>]/.exec(body.trim())?.[1] ?? null) : null;
}
