// Hashing, random identifiers and constant-time comparison. Digests come from `node:crypto`
// (Node, Lambda, and Workers with nodejs_compat): hashing an API token on every request, or every
// signed document, through WebCrypto's asynchronous digest cost Node a thread-pool round trip each time.
import { createHash, KeyObject, sign } from "node:crypto";
import { bytesToBase64Url, bytesToHex } from "./encoding.ts";

const encoder = new TextEncoder();

export async function sha256Hex(data: string | Uint8Array<ArrayBuffer>): Promise<string> {
  return createHash("sha256").update(data).digest("hex");
}

/** SHA-1 of the text's UTF-8 bytes, base64: an XMLDSig DigestValue. Given in parts, they are hashed one after another, never joined. */
export function sha1Base64(text: string | readonly string[]): string {
  const hash = createHash("sha1");
  if (typeof text === "string") hash.update(text, "utf8");
  else for (const part of text) hash.update(part, "utf8");
  return hash.digest("base64");
}

/**
 * The same digest over many parts, calling `pause` between slices of them: an envelope of 2 000
 * signed documents is some 10 MB to hash, tens of milliseconds in one go.
 */
export async function sha1Base64Sliced(parts: readonly string[], pause: () => Promise<void>, slice = 100): Promise<string> {
  const hash = createHash("sha1");
  for (const [i, part] of parts.entries()) {
    hash.update(part, "utf8");
    if (i % slice === slice - 1) await pause();
  }
  return hash.digest("base64");
}

/** node:crypto's names of the hashes a WebCrypto RSASSA-PKCS1-v1_5 key may carry. */
const NODE_HASHES: Record<string, string> = { "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" };
/** Per signing key: the same key as node:crypto takes it, or null where it does not convert. */
const nodeKeys = new WeakMap<CryptoKey, { key: KeyObject; hash: string } | null>();

function nodeKeyOf(key: CryptoKey): { key: KeyObject; hash: string } | null {
  const algorithm = key.algorithm as { name: string; hash?: { name: string } };
  const hash = NODE_HASHES[algorithm.hash?.name ?? ""];
  if (algorithm.name !== "RSASSA-PKCS1-v1_5" || key.type !== "private" || !key.usages.includes("sign") || !hash) return null;
  try {
    // The global CryptoKey is the one node:crypto's types call webcrypto.CryptoKey.
    return { key: KeyObject.from(key as unknown as Parameters<typeof KeyObject.from>[0]), hash };
  } catch {
    return null;
  }
}

/**
 * RSASSA-PKCS1-v1_5 with the key's own hash: the bytes WebCrypto's sign gives (the scheme is
 * deterministic), made synchronously through node:crypto where the key converts (Node, Lambda,
 * workerd with nodejs_compat), else by WebCrypto. On Node, WebCrypto signs on the thread pool, and
 * the hand-over there and back cost a signed document about 0.1 ms of CPU, a tenth of its whole cost.
 */
export async function signRsa(key: CryptoKey, data: Uint8Array): Promise<Uint8Array> {
  let native = nodeKeys.get(key);
  if (native === undefined) {
    native = nodeKeyOf(key);
    nodeKeys.set(key, native);
  }
  if (native) return sign(native.hash, data, native.key);
  return new Uint8Array(await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new Uint8Array(data)));
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
