// Thin glue over node-forge's ASN.1 codec: forge works on "binary strings" (one char per byte),
// the rest of the code on Uint8Array.

import forge from "node-forge";
import { decodeLatin1, encodeLatin1 } from "../lib/latin1.ts";

export type Asn1 = forge.asn1.Asn1;

export const RSA_ENCRYPTION = "1.2.840.113549.1.1.1";

/** forge's binary strings are latin1 strings: one character per byte. */
export const bytesToBinary = decodeLatin1;
export const binaryToBytes = (binary: string): Uint8Array<ArrayBuffer> => encodeLatin1(binary);

/** Parses DER (BER tolerated); null when the bytes are not ASN.1 at all. */
export function parseDer(bytes: Uint8Array): Asn1 | null {
  try {
    return forge.asn1.fromDer(bytesToBinary(bytes), false);
  } catch {
    return null;
  }
}

export function encodeDer(node: Asn1): Uint8Array<ArrayBuffer> {
  return binaryToBytes(forge.asn1.toDer(node).getBytes());
}

/** The universal-class children of a constructed node (context-tagged ones, like [0] version, skipped). */
export function children(node: Asn1 | undefined): Asn1[] {
  if (!node || !Array.isArray(node.value)) return [];
  return node.value.filter((child) => child.tagClass === forge.asn1.Class.UNIVERSAL);
}

export function isType(node: Asn1 | undefined, type: forge.asn1.Type): boolean {
  return node !== undefined && node.tagClass === forge.asn1.Class.UNIVERSAL && node.type === type;
}

/** The dotted OID of an OBJECT IDENTIFIER node, else null. */
export function oidOf(node: Asn1 | undefined): string | null {
  if (!node || !isType(node, forge.asn1.Type.OID) || typeof node.value !== "string") return null;
  return forge.asn1.derToOid(node.value);
}

/** A forge big integer as unsigned big-endian bytes, without a leading zero byte. */
export function bigIntegerBytes(value: forge.jsbn.BigInteger): Uint8Array<ArrayBuffer> {
  const hex = value.toString(16);
  const even = hex.length % 2 ? `0${hex}` : hex;
  const out = new Uint8Array(even.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(even.slice(i * 2, i * 2 + 2), 16);
  return out;
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
