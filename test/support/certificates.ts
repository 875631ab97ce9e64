// Test certificates written by hand (RFC 5280 §4.1) and signed with WebCrypto: RSA, RSA-PSS or ECDSA issuers,
// the CA flag, key identifiers and validity chosen per test. Runs in Node and workerd alike.
import { derElement } from "../../src/certificates/asn1.ts";
import type { XmlSigner } from "../../src/dte/sign/xmldsig.ts";
import { base64ToBytes, bytesToBase64, concatBytes } from "../../src/lib/encoding.ts";

export interface TestKey {
  keys: CryptoKeyPair;
  spki: Uint8Array<ArrayBuffer>;
  kind: "rsa" | "ec" | "pss";
}

export interface TestCertificate {
  der: Uint8Array<ArrayBuffer>;
  key: TestKey;
  name: string;
}

const SEQUENCE = 0x30;
const oid = (...bytes: number[]) => derElement(0x06, Uint8Array.of(...bytes));
const SHA256_RSA = derElement(SEQUENCE, oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b), Uint8Array.of(0x05, 0x00));
const ECDSA_SHA256 = derElement(SEQUENCE, oid(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02));
const SHA256 = derElement(SEQUENCE, oid(0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01), Uint8Array.of(0x05, 0x00));
/** RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt (RFC 4055 §3.1). */
const PSS_SHA256 = derElement(
  SEQUENCE,
  oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a),
  derElement(
    SEQUENCE,
    derElement(0xa0, SHA256),
    derElement(0xa1, derElement(SEQUENCE, oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08), SHA256)),
    derElement(0xa2, derElement(0x02, Uint8Array.of(32))),
  ),
);
const COMMON_NAME = oid(0x55, 0x04, 0x03);
const SERIAL_NUMBER = oid(0x55, 0x04, 0x05);
const BASIC_CONSTRAINTS = oid(0x55, 0x1d, 0x13);
const SUBJECT_KEY_ID = oid(0x55, 0x1d, 0x0e);
const AUTHORITY_KEY_ID = oid(0x55, 0x1d, 0x23);

export async function rsaKey(modulusLength = 2048): Promise<TestKey> {
  const algorithm = { name: "RSASSA-PKCS1-v1_5", modulusLength, publicExponent: Uint8Array.of(1, 0, 1), hash: "SHA-256" };
  const keys = (await crypto.subtle.generateKey(algorithm, true, ["sign", "verify"])) as CryptoKeyPair;
  return { keys, spki: new Uint8Array((await crypto.subtle.exportKey("spki", keys.publicKey)) as ArrayBuffer), kind: "rsa" };
}

/** An RSA key that signs with RSASSA-PSS. */
export async function pssKey(): Promise<TestKey> {
  const rsa = await rsaKey();
  const pkcs8 = (await crypto.subtle.exportKey("pkcs8", rsa.keys.privateKey)) as ArrayBuffer;
  const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "RSA-PSS", hash: "SHA-256" }, false, ["sign"]);
  return { keys: { publicKey: rsa.keys.publicKey, privateKey }, spki: rsa.spki, kind: "pss" };
}

export async function ecKey(): Promise<TestKey> {
  const keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  return { keys, spki: new Uint8Array((await crypto.subtle.exportKey("spki", keys.publicKey)) as ArrayBuffer), kind: "ec" };
}

export function nameDer(cn: string, serialNumber?: string): Uint8Array<ArrayBuffer> {
  const attribute = derElement(SEQUENCE, COMMON_NAME, derElement(0x0c, new TextEncoder().encode(cn)));
  const serial = serialNumber
    ? [derElement(0x31, derElement(SEQUENCE, SERIAL_NUMBER, derElement(0x13, new TextEncoder().encode(serialNumber))))]
    : [];
  return derElement(SEQUENCE, derElement(0x31, attribute), ...serial);
}

/** An OBJECT IDENTIFIER from its dotted form (X.690 §8.19). */
export function oidDer(dotted: string): Uint8Array<ArrayBuffer> {
  const [first = 0, second = 0, ...rest] = dotted.split(".").map(Number);
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const groups = [arc & 0x7f];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) groups.unshift((n & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return derElement(0x06, Uint8Array.from(bytes));
}

export type KeyUsageName =
  | "digitalSignature"
  | "nonRepudiation"
  | "keyEncipherment"
  | "dataEncipherment"
  | "keyAgreement"
  | "keyCertSign"
  | "cRLSign";
const KEY_USAGE_BITS: KeyUsageName[] = [
  "digitalSignature",
  "nonRepudiation",
  "keyEncipherment",
  "dataEncipherment",
  "keyAgreement",
  "keyCertSign",
  "cRLSign",
];

/** keyUsage's BIT STRING (RFC 5280 §4.2.1.3): bit 0 is the first byte's high bit; unused bits declared as 0. */
function keyUsageBits(names: KeyUsageName[]): Uint8Array<ArrayBuffer> {
  let byte = 0;
  for (const name of names) byte |= 0x80 >> KEY_USAGE_BITS.indexOf(name);
  return derElement(0x03, Uint8Array.of(0, byte));
}

/** The holder's RUT as Chilean CAs write it: subjectAltName otherName 1.3.6.1.4.1.8321.1, [0] EXPLICIT IA5String. */
function rutOtherName(rut: string): Uint8Array<ArrayBuffer> {
  return derElement(0xa0, oidDer("1.3.6.1.4.1.8321.1"), derElement(0xa0, derElement(0x16, new TextEncoder().encode(rut))));
}

/** GeneralizedTime, valid for any year. */
const time = (date: Date) => derElement(0x18, new TextEncoder().encode(`${date.toISOString().slice(0, 19).replace(/[-:T]/g, "")}Z`));

const extension = (id: Uint8Array, value: Uint8Array, critical = false) =>
  derElement(SEQUENCE, id, ...(critical ? [Uint8Array.of(0x01, 0x01, 0xff)] : []), derElement(0x04, value));

/** ECDSA's raw r||s as the DER ECDSA-Sig-Value certificates carry (RFC 5758 §3.2). */
function ecdsaDer(raw: Uint8Array): Uint8Array<ArrayBuffer> {
  const integer = (bytes: Uint8Array) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    const trimmed = bytes.subarray(start);
    return derElement(0x02, (trimmed[0] as number) & 0x80 ? concatBytes([Uint8Array.of(0), trimmed]) : trimmed);
  };
  const half = raw.length / 2;
  return derElement(SEQUENCE, integer(raw.subarray(0, half)), integer(raw.subarray(half)));
}

export interface CertificateOptions {
  name: string;
  key: TestKey;
  /** The issuer; absent: self-signed. */
  issuer?: TestCertificate;
  ca?: boolean;
  notBefore?: Date;
  notAfter?: Date;
  /** Key identifiers (20 bytes each); SKI from `keyId`, AKI from the issuer's. */
  keyId?: Uint8Array;
  issuerKeyId?: Uint8Array;
  serial?: number;
  /** basicConstraints pathLenConstraint (with `ca`). */
  pathLen?: number;
  /** keyUsage, critical. */
  keyUsage?: KeyUsageName[];
  /** extendedKeyUsage purposes (dotted OIDs). */
  extKeyUsage?: { purposes: string[]; critical?: boolean };
  /** A critical extension of this OID (an empty SEQUENCE as its value). */
  criticalExtension?: string;
  /** RUTs as subjectAltName otherNames. */
  ruts?: string[];
  /** The subject's serialNumber attribute. */
  serialNumber?: string;
}

export async function makeCertificate(options: CertificateOptions): Promise<TestCertificate> {
  const signer = options.issuer?.key ?? options.key;
  const algorithm = { rsa: SHA256_RSA, pss: PSS_SHA256, ec: ECDSA_SHA256 }[signer.kind];
  const extensions: Uint8Array[] = [];
  if (options.ca !== undefined) {
    const cA = options.ca ? Uint8Array.of(0x01, 0x01, 0xff) : new Uint8Array(0);
    const pathLen = options.pathLen === undefined ? [] : [derElement(0x02, Uint8Array.of(options.pathLen))];
    extensions.push(extension(BASIC_CONSTRAINTS, derElement(SEQUENCE, cA, ...pathLen), true));
  }
  if (options.keyUsage) extensions.push(extension(oidDer("2.5.29.15"), keyUsageBits(options.keyUsage), true));
  if (options.extKeyUsage) {
    const purposes = derElement(SEQUENCE, ...options.extKeyUsage.purposes.map(oidDer));
    extensions.push(extension(oidDer("2.5.29.37"), purposes, options.extKeyUsage.critical));
  }
  if (options.criticalExtension) extensions.push(extension(oidDer(options.criticalExtension), derElement(SEQUENCE), true));
  if (options.ruts) extensions.push(extension(oidDer("2.5.29.17"), derElement(SEQUENCE, ...options.ruts.map(rutOtherName))));
  if (options.keyId) extensions.push(extension(SUBJECT_KEY_ID, derElement(0x04, options.keyId)));
  if (options.issuerKeyId) extensions.push(extension(AUTHORITY_KEY_ID, derElement(SEQUENCE, derElement(0x80, options.issuerKeyId))));
  const tbs = derElement(
    SEQUENCE,
    derElement(0xa0, derElement(0x02, Uint8Array.of(2))),
    derElement(0x02, Uint8Array.of(0, ...new TextEncoder().encode(String(options.serial ?? 1)))),
    algorithm,
    nameDer(options.issuer?.name ?? options.name),
    derElement(SEQUENCE, time(options.notBefore ?? new Date("2020-01-01")), time(options.notAfter ?? new Date("2040-01-01"))),
    nameDer(options.name, options.serialNumber),
    options.key.spki,
    ...(extensions.length > 0 ? [derElement(0xa3, derElement(SEQUENCE, ...extensions))] : []),
  );
  const params = { rsa: { name: "RSASSA-PKCS1-v1_5" }, pss: { name: "RSA-PSS", saltLength: 32 }, ec: { name: "ECDSA", hash: "SHA-256" } }[
    signer.kind
  ];
  const signature = new Uint8Array(await crypto.subtle.sign(params, signer.keys.privateKey, tbs));
  const value = signer.kind === "ec" ? ecdsaDer(signature) : signature;
  const der = derElement(SEQUENCE, tbs, algorithm, derElement(0x03, concatBytes([Uint8Array.of(0), value])));
  return { der, key: options.key, name: options.name };
}

/** The same certificate with the last byte of its signature changed. */
export function alterSignature(der: Uint8Array): Uint8Array<ArrayBuffer> {
  const copy = new Uint8Array(der);
  copy[copy.length - 1] = (copy[copy.length - 1] as number) ^ 0x01;
  return copy;
}

/** A test key as the signer of XMLDSig signatures (RSA-SHA1, as the SII's profile signs). */
export async function signerOf(certificate: TestCertificate, rut = "11111111-1"): Promise<XmlSigner & { rut: string }> {
  const { keys } = certificate.key;
  const pkcs8 = (await crypto.subtle.exportKey("pkcs8", keys.privateKey)) as ArrayBuffer;
  const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" }, false, ["sign"]);
  const jwk = (await crypto.subtle.exportKey("jwk", keys.publicKey)) as JsonWebKey;
  const base64 = (url = "") => bytesToBase64(base64ToBytes(url.replace(/-/g, "+").replace(/_/g, "/")));
  return {
    privateKey,
    modulusBase64: base64(jwk.n),
    exponentBase64: base64(jwk.e),
    certificateBase64: bytesToBase64(certificate.der),
    rut,
  };
}
