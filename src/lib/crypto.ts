// Hashing, random identifiers and constant-time comparison on WebCrypto (every runtime has it).
import { bytesToBase64Url, bytesToHex } from "./encoding.ts";

const encoder = new TextEncoder();

export async function sha256Hex(data: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
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
