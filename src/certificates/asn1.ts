// A small DER reader (BER tolerated: indefinite lengths, constructed strings, as Windows PFX
// exports use) and the few DER writers the credential code needs. X.690 §8 is the reference.
// Hand-written instead of a general library: the Worker bundle carried node-forge (~300 KB
// minified) for this and the PKCS#12 reading in pkcs12.ts.
import { concatBytes } from "../lib/encoding.ts";

export interface Asn1 {
  /** 0 universal, 1 application, 2 context-specific, 3 private. */
  tagClass: number;
  tag: number;
  constructed: boolean;
  /** The whole element, header included (the exact bytes a signature covers). */
  raw: Uint8Array<ArrayBuffer>;
  /** The contents octets (for an indefinite length, without the end-of-contents marker). */
  content: Uint8Array<ArrayBuffer>;
  /** The parsed elements of a constructed node; empty for a primitive one. */
  children: Asn1[];
}

export const TAG = {
  BOOLEAN: 1,
  INTEGER: 2,
  BIT_STRING: 3,
  OCTET_STRING: 4,
  NULL: 5,
  OID: 6,
  UTF8_STRING: 12,
  SEQUENCE: 16,
  SET: 17,
  BMP_STRING: 30,
} as const;

export const RSA_ENCRYPTION = "1.2.840.113549.1.1.1";

/** Deeper nesting than any certificate or PFX has; refusing it keeps the recursion bounded. */
const MAX_DEPTH = 40;

class Malformed extends Error {}

function readElement(bytes: Uint8Array<ArrayBuffer>, start: number, end: number, depth: number): Asn1 {
  if (depth > MAX_DEPTH || start + 2 > end) throw new Malformed();
  let at = start;
  const first = bytes[at++] as number;
  const tagClass = first >> 6;
  const constructed = (first & 0x20) !== 0;
  let tag = first & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (let n = 0; ; n++) {
      if (at >= end || n > 3) throw new Malformed();
      const b = bytes[at++] as number;
      tag = tag * 128 + (b & 0x7f);
      if (!(b & 0x80)) break;
    }
  }
  if (at >= end) throw new Malformed();
  const lengthByte = bytes[at++] as number;
  const children: Asn1[] = [];
  if (lengthByte === 0x80) {
    // Indefinite length (BER): constructed only, closed by two zero bytes.
    if (!constructed) throw new Malformed();
    const contentStart = at;
    for (;;) {
      if (at + 2 > end) throw new Malformed();
      if (bytes[at] === 0 && bytes[at + 1] === 0) break;
      const child = readElement(bytes, at, end, depth + 1);
      children.push(child);
      at += child.raw.length;
    }
    return { tagClass, tag, constructed, raw: bytes.subarray(start, at + 2), content: bytes.subarray(contentStart, at), children };
  }
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count > 4) throw new Malformed();
    length = 0;
    for (let i = 0; i < count; i++) {
      if (at >= end) throw new Malformed();
      length = length * 256 + (bytes[at++] as number);
    }
  }
  const contentEnd = at + length;
  if (contentEnd > end) throw new Malformed();
  if (constructed) {
    for (let child = at; child < contentEnd; ) {
      const node = readElement(bytes, child, contentEnd, depth + 1);
      children.push(node);
      child += node.raw.length;
    }
  }
  return { tagClass, tag, constructed, raw: bytes.subarray(start, contentEnd), content: bytes.subarray(at, contentEnd), children };
}

/** Parses one element that spans all the bytes (BER tolerated); null when they are not ASN.1. */
export function parseDer(bytes: Uint8Array): Asn1 | null {
  const own = new Uint8Array(bytes.byteLength);
  own.set(bytes);
  try {
    const node = readElement(own, 0, own.length, 0);
    return node.raw.length === own.length ? node : null;
  } catch (error) {
    if (error instanceof Malformed) return null;
    throw error;
  }
}

/** The universal-class children of a constructed node (context-tagged ones, like [0] version, skipped). */
export function children(node: Asn1 | undefined): Asn1[] {
  return node ? node.children.filter((child) => child.tagClass === 0) : [];
}

export function isType(node: Asn1 | undefined, tag: number): node is Asn1 {
  return node !== undefined && node.tagClass === 0 && node.tag === tag;
}

/** The child `[n]` (context-specific) of a node, if any. */
export function contextChild(node: Asn1 | undefined, n: number): Asn1 | undefined {
  return node?.children.find((child) => child.tagClass === 2 && child.tag === n);
}

/** The dotted OID of an OBJECT IDENTIFIER node, else null. */
export function oidOf(node: Asn1 | undefined): string | null {
  if (!isType(node, TAG.OID) || node.content.length === 0) return null;
  const parts: number[] = [];
  let value = 0;
  for (const b of node.content) {
    value = value * 128 + (b & 0x7f);
    if (b & 0x80) continue;
    if (parts.length === 0) parts.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
    else parts.push(value);
    value = 0;
  }
  return parts.join(".");
}

/** The bytes of an OCTET STRING (a BER constructed one is joined from its pieces), else null. */
export function octetsOf(node: Asn1 | undefined): Uint8Array<ArrayBuffer> | null {
  if (!node) return null;
  if (!node.constructed) return node.content;
  const pieces = node.children.map((child) => octetsOf(child));
  if (pieces.some((piece) => piece === null)) return null;
  return concatBytes(pieces as Uint8Array[]);
}

/**
 * An INTEGER as a number: iteration counts and versions. Beyond 2^48 it is ±Infinity, which every
 * limit refuses.
 */
export function integerOf(node: Asn1 | undefined): number | null {
  if (!isType(node, TAG.INTEGER) || node.content.length === 0) return null;
  const negative = ((node.content[0] as number) & 0x80) !== 0;
  if (node.content.length > 6) return negative ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  let value = 0;
  for (const b of node.content) value = value * 256 + b;
  return negative ? value - 2 ** (8 * node.content.length) : value;
}

/** An INTEGER as unsigned big-endian bytes without leading zero bytes (RSA modulus, exponent). */
export function unsignedBytes(node: Asn1 | undefined): Uint8Array<ArrayBuffer> | null {
  if (!isType(node, TAG.INTEGER)) return null;
  let start = 0;
  while (start < node.content.length - 1 && node.content[start] === 0) start++;
  return node.content.slice(start);
}

/**
 * Modulus and exponent of a SubjectPublicKeyInfo (RFC 5280 §4.1.2.7) holding an RSAPublicKey
 * (RFC 8017 appendix A.1.1) inside its BIT STRING, after the unused-bits byte; null otherwise.
 */
export function rsaPublicNumbers(spki: Asn1 | undefined): { modulus: Uint8Array<ArrayBuffer>; exponent: Uint8Array<ArrayBuffer> } | null {
  const bits = children(spki)[1];
  const key = isType(bits, TAG.BIT_STRING) ? parseDer(bits.content.subarray(1)) : null;
  const [n, e] = children(key ?? undefined);
  const modulus = unsignedBytes(n);
  const exponent = unsignedBytes(e);
  return modulus && exponent ? { modulus, exponent } : null;
}

/** One DER element: identifier byte (class, constructed bit and tag below 31), length, contents. */
export function derElement(identifier: number, ...contents: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const body = concatBytes(contents);
  const n = body.length;
  const length =
    n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : n < 0x10000 ? [0x82, n >> 8, n & 0xff] : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  return concatBytes([Uint8Array.of(identifier, ...length), body]);
}

/** rsaEncryption's AlgorithmIdentifier (with NULL parameters), DER. */
const RSA_ALGORITHM = Uint8Array.of(0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00);

/** A PKCS#1 RSAPrivateKey wrapped as an unencrypted PKCS#8 PrivateKeyInfo (RFC 5208 §5). */
export function wrapRsaPrivateKey(pkcs1: Uint8Array): Uint8Array<ArrayBuffer> {
  return derElement(0x30, Uint8Array.of(0x02, 0x01, 0x00), RSA_ALGORITHM, derElement(0x04, pkcs1));
}

const KEY_ALGORITHMS: Record<string, string> = {
  [RSA_ENCRYPTION]: "RSA",
  "1.2.840.113549.1.1.10": "RSA-PSS",
  "1.2.840.10045.2.1": "EC",
  "1.2.840.10040.4.1": "DSA",
  "1.3.101.110": "X25519",
  "1.3.101.111": "X448",
  "1.3.101.112": "Ed25519",
  "1.3.101.113": "Ed448",
};

/** A readable name for a key algorithm OID (for error messages). */
export function keyAlgorithmName(oid: string | null): string {
  if (!oid) return "an unknown algorithm";
  return KEY_ALGORITHMS[oid] ?? oid;
}
