// Secrets at rest (proxy passwords, cached SII sessions): AES-256-GCM under a key derived from
// the server's SECRET_KEY, so a copy of the store alone reveals nothing.

import { createHmac } from "node:crypto";
import { randomBytes } from "./crypto.ts";
import { base64ToBytes, bytesToBase64 } from "./encoding.ts";

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function keyFor(secret: string, purpose: string): Promise<CryptoKey> {
  const id = `${purpose}\u0000${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = (async () => {
      const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
      return crypto.subtle.deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(purpose) },
        material,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      );
    })();
    keys.set(id, key);
  }
  return key;
}

/** `v1.<iv>.<ciphertext>`, base64. `purpose` separates keys for different kinds of data. */
export async function seal(secret: string, purpose: string, plaintext: string): Promise<string> {
  const iv = randomBytes(12);
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await keyFor(secret, purpose), encoder.encode(plaintext));
  return `v1.${bytesToBase64(iv)}.${bytesToBase64(new Uint8Array(sealed))}`;
}

/** The plaintext, or null when the box was sealed with another key or tampered with. */
export async function open(secret: string, purpose: string, box: string): Promise<string | null> {
  const [version, iv, data] = box.split(".");
  if (version !== "v1" || !iv || !data) return null;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: base64ToBytes(iv) },
      await keyFor(secret, purpose),
      base64ToBytes(data),
    );
    return new TextDecoder().decode(plain);
  } catch {
    return null;
  }
}

/**
 * HMAC-SHA-256 hex: fingerprints of credentials that can be compared but not reversed. From
 * `node:crypto`, like sha256Hex: it runs on every session lookup, and WebCrypto imported the key
 * and went through the thread pool each time.
 */
export async function keyedHash(secret: string, data: string): Promise<string> {
  return createHmac("sha256", secret).update(data).digest("hex");
}
