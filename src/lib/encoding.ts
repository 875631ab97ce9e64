// Byte helpers that behave the same on Workers, Node and Lambda (no Buffer).

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Below this many bytes (signatures, digests, keys) a lookup table beats a binary string for btoa. */
const SMALL = 1024;

export function bytesToBase64(bytes: Uint8Array): string {
  if (bytes.length < SMALL) return smallBytesToBase64(bytes);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function smallBytesToBase64(bytes: Uint8Array): string {
  const at = (i: number) => bytes[i] ?? 0;
  const digit = (n: number) => BASE64.charAt(n & 63);
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    out += digit(n >> 18) + digit(n >> 12) + digit(n >> 6) + digit(n);
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = (at(i) << 16) | (rest === 2 ? at(i + 1) << 8 : 0);
    out += `${digit(n >> 18)}${digit(n >> 12)}${rest === 2 ? digit(n >> 6) : "="}=`;
  }
  return out;
}

export function base64ToBytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Base64 characters decoded between two pauses (a multiple of 4): ~1–2 ms of work on Node (a MiB took 5–60 ms). */
const BASE64_PIECE = 1 << 18;

/**
 * `base64ToBytes(text.replace(/\s+/g, ""))` a piece at a time with `pause` between them (an upload
 * of 2 000 documents is ~12 MB of base64): the whitespace of line-wrapped base64 is dropped piece
 * by piece too, so no step reads the whole text. Refuses what `atob` refuses on the whole text:
 * padding is only allowed at the very end, so a piece before the last that ends in "=" is refused.
 * `piece` is for tests (a multiple of 4).
 */
export async function base64ToBytesAsync(text: string, pause: () => Promise<void>, piece = BASE64_PIECE): Promise<Uint8Array<ArrayBuffer>> {
  const pieces: string[] = [];
  let length = 0;
  let carry = "";
  let padded = false;
  for (let at = 0; at < text.length; at += piece) {
    const last = at + piece >= text.length;
    const digits = carry + text.slice(at, at + piece).replace(/\s+/g, "");
    // Whole quadruples now; the rest waits for the next piece (the last decodes all that is left).
    const cut = last ? digits.length : digits.length - (digits.length % 4);
    carry = digits.slice(cut);
    if (cut === 0) continue;
    if (padded) throw new DOMException("padding before the end", "InvalidCharacterError");
    const binary = atob(digits.slice(0, cut));
    padded = digits.charCodeAt(cut - 1) === 0x3d; // "="
    pieces.push(binary);
    length += binary.length;
    await pause();
  }
  const out = new Uint8Array(length);
  let offset = 0;
  for (const binary of pieces) {
    for (let i = 0; i < binary.length; i++) out[offset + i] = binary.charCodeAt(i);
    offset += binary.length;
    await pause();
  }
  return out;
}

export function bytesToHex(bytes: Uint8Array): string {
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return hex;
}

export function bytesToBase64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
