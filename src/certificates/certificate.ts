// Reads what signing needs from an X.509 certificate (RFC 5280 §4.1): names, validity, RSA public
// key and the holder's RUT, with the DER reader of asn1.ts.
import { bytesToHex } from "../lib/encoding.ts";
import { parseRut } from "../lib/rut.ts";
import {
  type Asn1,
  children,
  contextChild,
  integerOf,
  isType,
  keyAlgorithmName,
  octetsOf,
  oidOf,
  parseDer,
  RSA_ENCRYPTION,
  rsaPublicNumbers,
  TAG,
} from "./asn1.ts";

/** Chilean CAs put the holder's RUT in subjectAltName as otherName with this type (IA5String). */
export const RUT_OTHER_NAME = "1.3.6.1.4.1.8321.1";
const SERIAL_NUMBER = "2.5.4.5";
const COMMON_NAME = "2.5.4.3";
const SUBJECT_ALT_NAME = "2.5.29.17";

export interface RsaCertificate {
  der: Uint8Array<ArrayBuffer>;
  subjectName: string;
  issuerName: string;
  notBefore: Date;
  notAfter: Date;
  /** The RUT of the holder, canonical `12345678-9`; null when the certificate names none, or more than one. */
  rut: string | null;
  /** Every distinct RUT it names (subjectAltName otherNames, subject serialNumber). */
  ruts: string[];
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

/** The signed parts of a certificate, for checking who issued it. */
export interface CertificateParts {
  /** The TBSCertificate's DER: what the issuer signed. */
  tbs: Uint8Array<ArrayBuffer>;
  signatureAlgorithm: string;
  signature: Uint8Array<ArrayBuffer>;
  /** The SubjectPublicKeyInfo's DER (WebCrypto imports it as "spki"). */
  spki: Uint8Array<ArrayBuffer>;
}

interface Parsed extends CertificateParts {
  tbsNode: Asn1;
  tbsFields: Asn1[];
  /** The signatureAlgorithm's parameters, if any. */
  parameters: Asn1 | undefined;
}

function parse(der: Uint8Array): Parsed | null {
  const root = parseDer(der);
  if (!root || !isType(root, TAG.SEQUENCE)) return null;
  const [tbs, signatureAlgorithm, signature] = children(root);
  if (!isType(tbs, TAG.SEQUENCE) || !isType(signatureAlgorithm, TAG.SEQUENCE) || !isType(signature, TAG.BIT_STRING)) return null;
  // Without the [0] version: serial, signature, issuer, validity, subject, spki.
  const tbsFields = children(tbs);
  const spki = tbsFields[5];
  const algorithm = oidOf(children(signatureAlgorithm)[0]);
  if (!isType(spki, TAG.SEQUENCE) || !algorithm || signature.content.length < 1) return null;
  const parameters = children(signatureAlgorithm)[1];
  return {
    tbs: tbs.raw,
    signatureAlgorithm: algorithm,
    signature: signature.content.slice(1),
    spki: spki.raw,
    tbsNode: tbs,
    tbsFields,
    parameters,
  };
}

/** The signed parts, or null when the bytes are not a certificate. */
export function certificateParts(der: Uint8Array): CertificateParts | null {
  const parsed = parse(der);
  return parsed && { tbs: parsed.tbs, signatureAlgorithm: parsed.signatureAlgorithm, signature: parsed.signature, spki: parsed.spki };
}

/** Short names as OpenSSL prints them (X.520 attribute types); other types by OID. */
const SHORT_NAMES: Record<string, string> = {
  [COMMON_NAME]: "CN",
  "2.5.4.6": "C",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  [SERIAL_NUMBER]: "serialNumber",
  "2.5.4.4": "SN",
  "2.5.4.42": "GN",
  "2.5.4.12": "title",
  "1.2.840.113549.1.9.1": "emailAddress",
};

/** A directory string's text: UTF8String and BMPString decoded, the ASCII/Latin-1 types byte for byte. */
function stringText(node: Asn1): string {
  if (node.tag === TAG.UTF8_STRING) return new TextDecoder().decode(node.content);
  if (node.tag === TAG.BMP_STRING) return new TextDecoder("utf-16be").decode(node.content);
  let text = "";
  for (const b of node.content) text += String.fromCharCode(b);
  return text;
}

/** A Name's attributes in order: RDNSequence of SETs of (type, value). */
function nameAttributes(name: Asn1 | undefined): { type: string; value: string }[] {
  const out: { type: string; value: string }[] = [];
  for (const rdn of children(name)) {
    for (const attribute of children(rdn)) {
      const [typeNode, value] = children(attribute);
      const type = oidOf(typeNode);
      if (type && value) out.push({ type, value: stringText(value) });
    }
  }
  return out;
}

/** The CN, else the whole name as `C=CL, O=…`. */
function displayName(name: Asn1 | undefined): string {
  const attributes = nameAttributes(name);
  const cn = attributes.find((a) => a.type === COMMON_NAME);
  if (cn) return cn.value;
  return attributes.map((a) => `${SHORT_NAMES[a.type] ?? a.type}=${a.value}`).join(", ");
}

/** UTCTime (YYMMDDHHMM[SS]) or GeneralizedTime (YYYYMMDDHHMM[SS][.f]), with Z or ±hhmm (X.680 §46-47). */
function timeOf(node: Asn1 | undefined): Date | null {
  if (node?.tagClass !== 0 || (node.tag !== 23 && node.tag !== 24)) return null;
  const text = stringText(node);
  const match = /^(\d{2}|\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(?:[.,](\d+))?(Z|[+-]\d{4})?$/.exec(text);
  if (!match || (node.tag === 23) !== (match[1]?.length === 2)) return null;
  const [, y = "", mo = "", d = "", h = "", mi = "", s = "0", fraction = "", zone = "Z"] = match;
  // RFC 5280 §4.1.2.5.1: a two-digit year from 50 is 19YY, below 50 is 20YY.
  // A GeneralizedTime's four digits are the year as given: Date.UTC would read 0000–0099 as 1900–1999.
  const year = y.length === 2 ? (Number(y) >= 50 ? 1900 : 2000) + Number(y) : Number(y);
  const date = new Date(
    Date.UTC(2000, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Math.round(Number(`0.${fraction || "0"}`) * 1000)),
  );
  date.setUTCFullYear(year);
  let time = date.getTime();
  if (zone !== "Z") time -= (zone.startsWith("-") ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3))) * 60_000;
  return Number.isNaN(time) ? null : new Date(time);
}

interface Extension {
  oid: string;
  critical: boolean;
  /** The parsed extnValue; null when unreadable. */
  value: Asn1 | null;
}

/** The extensions of the `[3]` Extensions (RFC 5280 §4.1.2.9): Extension ::= SEQUENCE { extnID, critical DEFAULT FALSE, extnValue }. */
function extensionsOf(extensions: Asn1 | undefined): Extension[] {
  const out: Extension[] = [];
  for (const extension of children(children(extensions)[0] ?? extensions)) {
    const [idNode, ...rest] = children(extension);
    const oid = oidOf(idNode);
    if (!oid) continue;
    const flag = rest.find((node) => isType(node, TAG.BOOLEAN));
    const octets = octetsOf(rest.find((node) => isType(node, TAG.OCTET_STRING)));
    out.push({ oid, critical: flag?.content[0] !== undefined && flag.content[0] !== 0, value: octets ? parseDer(octets) : null });
  }
  return out;
}

/** The parsed extnValue of the extension `oid`, if present and readable. */
function extensionValue(extensions: Asn1 | undefined, oid: string): Asn1 | null {
  return extensionsOf(extensions).find((e) => e.oid === oid)?.value ?? null;
}

/** The strings inside subjectAltName otherNames of the RUT type (`[0] EXPLICIT` any string type). */
function rutOtherNames(extensions: Asn1 | undefined): string[] {
  const out: string[] = [];
  for (const general of extensionValue(extensions, SUBJECT_ALT_NAME)?.children ?? []) {
    // GeneralName otherName: [0] { type-id OID, [0] EXPLICIT value }.
    if (general.tagClass !== 2 || general.tag !== 0 || !general.constructed) continue;
    const [typeId, explicit] = general.children;
    const inner = explicit?.children[0];
    if (oidOf(typeId) === RUT_OTHER_NAME && explicit?.tagClass === 2 && inner && !inner.constructed) out.push(stringText(inner));
  }
  return out;
}

/**
 * Every distinct RUT the certificate names, in subjectAltName otherNames and the subject's
 * serialNumber: one is the holder's; two leave open who the holder is (a finding, never a pick).
 */
function certificateRuts(tbs: Asn1[], extensions: Asn1 | undefined): string[] {
  const candidates = rutOtherNames(extensions);
  const serial = nameAttributes(tbs[4]).find((a) => a.type === SERIAL_NUMBER);
  if (serial) candidates.push(serial.value);
  const ruts = new Set<string>();
  for (const candidate of candidates) {
    // Chilean CAs zero-pad the RUT (`07880442-4`).
    const parsed = parseRut(candidate.trim().replace(/^0+(?=\d)/, ""));
    if (parsed.ok) ruts.add(parsed.rut);
  }
  return [...ruts];
}

export function readCertificate(der: Uint8Array<ArrayBuffer>): CertificateRead {
  const parsed = parse(der);
  if (!parsed) return { ok: false, problem: "not-x509" };
  const { tbsFields } = parsed;
  const algorithm = oidOf(children(children(tbsFields[5])[0])[0]);
  if (!algorithm) return { ok: false, problem: "not-x509" };
  if (algorithm !== RSA_ENCRYPTION) return { ok: false, problem: "not-rsa", algorithm: keyAlgorithmName(algorithm) };
  const numbers = rsaPublicNumbers(tbsFields[5]);
  const [notBefore, notAfter] = children(tbsFields[3]).map(timeOf);
  if (!numbers || !notBefore || !notAfter) return { ok: false, problem: "not-x509" };
  const { modulus, exponent } = numbers;
  const ruts = certificateRuts(tbsFields, contextChild(parsed.tbsNode, 3));
  return {
    ok: true,
    certificate: {
      der,
      subjectName: displayName(tbsFields[4]),
      issuerName: displayName(tbsFields[2]),
      notBefore,
      notAfter,
      rut: ruts.length === 1 ? (ruts[0] as string) : null,
      ruts,
      modulus,
      exponent,
      modulusHex: bytesToHex(modulus).replace(/^0+/, ""),
    },
  };
}

const BASIC_CONSTRAINTS = "2.5.29.19";
const SUBJECT_KEY_IDENTIFIER = "2.5.29.14";
const AUTHORITY_KEY_IDENTIFIER = "2.5.29.35";
const KEY_USAGE = "2.5.29.15";
const EXTENDED_KEY_USAGE = "2.5.29.37";

/** keyUsage's bits in order (RFC 5280 §4.2.1.3). */
const KEY_USAGES = [
  "digitalSignature",
  "nonRepudiation",
  "keyEncipherment",
  "dataEncipherment",
  "keyAgreement",
  "keyCertSign",
  "cRLSign",
  "encipherOnly",
  "decipherOnly",
] as const;
export type KeyUsage = (typeof KEY_USAGES)[number];

/** The usages a keyUsage BIT STRING asserts (bit 0 is the first content byte's high bit, after the unused-bits byte). */
function keyUsagesOf(value: Asn1 | null): Set<KeyUsage> {
  const bits = isType(value ?? undefined, TAG.BIT_STRING) ? (value as Asn1).content.subarray(1) : new Uint8Array(0);
  return new Set(KEY_USAGES.filter((_, i) => ((bits[i >> 3] ?? 0) & (0x80 >> (i & 7))) !== 0));
}

/** What linking a certificate to its issuer needs (RFC 5280 §6.1): names as DER, validity, CA flag, key ids. */
export interface CertificateLinks extends CertificateParts {
  /** The issuer and subject Names' DER, compared byte for byte to find an issuer. */
  issuer: Uint8Array<ArrayBuffer>;
  subject: Uint8Array<ArrayBuffer>;
  issuerName: string;
  subjectName: string;
  notBefore: Date;
  notAfter: Date;
  /** basicConstraints cA (RFC 5280 §4.2.1.9); false when the extension is absent. */
  isCa: boolean;
  /** Whether basicConstraints is present at all (v1 roots have none). */
  hasBasicConstraints: boolean;
  /** basicConstraints pathLenConstraint; null when absent. */
  pathLen: number | null;
  /** keyUsage (RFC 5280 §4.2.1.3); null when the extension is absent (any use). */
  keyUsage: Set<KeyUsage> | null;
  /** extendedKeyUsage's purposes as OIDs (RFC 5280 §4.2.1.12); null when absent. */
  extKeyUsage: string[] | null;
  /** The OIDs of the extensions marked critical. */
  criticalExtensions: string[];
  subjectKeyId: Uint8Array<ArrayBuffer> | null;
  /** authorityKeyIdentifier's keyIdentifier [0] (RFC 5280 §4.2.1.1). */
  authorityKeyId: Uint8Array<ArrayBuffer> | null;
  /** The signatureAlgorithm's parameters' DER (RSASSA-PSS carries its hash and salt there); null when absent. */
  signatureParameters: Uint8Array<ArrayBuffer> | null;
}

/** The links to the issuer, or null when the bytes are not a certificate. */
export function certificateLinks(der: Uint8Array): CertificateLinks | null {
  const parsed = parse(der);
  if (!parsed) return null;
  const { tbsFields, tbsNode } = parsed;
  const [issuer, validity, subject] = [tbsFields[2], tbsFields[3], tbsFields[4]];
  const [notBefore, notAfter] = children(validity).map(timeOf);
  if (!isType(issuer, TAG.SEQUENCE) || !isType(subject, TAG.SEQUENCE) || !notBefore || !notAfter) return null;
  const extensions = extensionsOf(contextChild(tbsNode, 3));
  const value = (oid: string) => extensions.find((e) => e.oid === oid)?.value ?? null;
  const basic = value(BASIC_CONSTRAINTS);
  // BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER OPTIONAL }.
  const cA = children(basic ?? undefined).find((n) => isType(n, TAG.BOOLEAN));
  const pathLen = integerOf(children(basic ?? undefined).find((n) => isType(n, TAG.INTEGER)));
  const hasKeyUsage = extensions.some((e) => e.oid === KEY_USAGE);
  const eku = extensions.find((e) => e.oid === EXTENDED_KEY_USAGE);
  const ski = value(SUBJECT_KEY_IDENTIFIER);
  const aki = value(AUTHORITY_KEY_IDENTIFIER)?.children.find((n) => n.tagClass === 2 && n.tag === 0);
  return {
    tbs: parsed.tbs,
    signatureAlgorithm: parsed.signatureAlgorithm,
    signature: parsed.signature,
    spki: parsed.spki,
    issuer: issuer.raw,
    subject: subject.raw,
    issuerName: displayName(issuer),
    subjectName: displayName(subject),
    notBefore,
    notAfter,
    isCa: isType(cA, TAG.BOOLEAN) && cA.content[0] !== 0,
    hasBasicConstraints: extensions.some((e) => e.oid === BASIC_CONSTRAINTS),
    pathLen: pathLen !== null && pathLen >= 0 ? pathLen : null,
    keyUsage: hasKeyUsage ? keyUsagesOf(value(KEY_USAGE)) : null,
    extKeyUsage: eku ? children(eku.value ?? undefined).map((n) => oidOf(n) ?? "") : null,
    criticalExtensions: extensions.filter((e) => e.critical).map((e) => e.oid),
    subjectKeyId: ski && isType(ski, TAG.OCTET_STRING) ? ski.content : null,
    authorityKeyId: aki && !aki.constructed ? aki.content : null,
    signatureParameters: parsed.parameters?.tag === TAG.NULL ? null : (parsed.parameters?.raw ?? null),
  };
}
