// Hashing, random identifiers and constant-time comparison. Digests come from `node:crypto`
// (Node, Lambda, and Workers with nodejs_compat): hashing an API token on every request, or every
// signed document, through WebCrypto's asynchronous digest cost Node a thread-pool round trip each time.
import { createHash } from "node:crypto";
import { bytesToBase64Url, bytesToHex } from "./encoding.ts";

const encoder = new TextEncoder();

export async function sha256Hex(data: string | Uint8Array<ArrayBuffer>): Promise<string> {
  return createHash("sha256").update(data).digest("hex");
}

/** SHA-1 of the text's UTF-8 bytes, base64: an XMLDSig DigestValue. */
export function sha1Base64(text: string): string {
  return createHash("sha1").update(text, "utf8").digest("base64");
}

export function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(length));
}

export function randomHex(bytes: number): string {
  return bytesToHex(randomBytes(bytes));
}

export function randomBase64Url(bytes: number): string {
  return bytesToBase64Url(randomBytes(bytes));
}

/** Compares two strings in time that depends only on their lengths, not on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
