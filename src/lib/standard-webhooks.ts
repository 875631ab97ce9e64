// Signing by the Standard Webhooks specification 1.0 (standardwebhooks.com, spec/standard-webhooks.md):
// the secret is `whsec_` and base64 of random bytes (24 to 64; we draw 32); the signature is
// `v1,` and base64 of HMAC-SHA256 under those bytes of `{webhook-id}.{webhook-timestamp}.{body}`, the
// timestamp in seconds; several signatures (a rotation) are separated by spaces. The npm `standardwebhooks`
// package verifies what this signs (test/node/standard-webhooks.test.ts).
import { randomBytes } from "./crypto.ts";
import { base64ToBytes, bytesToBase64 } from "./encoding.ts";

export const WEBHOOK_SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

/** A new endpoint secret: shown once to the account, then only sealed. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${bytesToBase64(randomBytes(SECRET_BYTES))}`;
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error("not a whsec_ secret");
  const bytes = base64ToBytes(secret.slice(WEBHOOK_SECRET_PREFIX.length));
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** `v1,<base64>` for one secret. */
async function signOne(secret: string, content: Uint8Array): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), content as Uint8Array<ArrayBuffer>);
  return `v1,${bytesToBase64(new Uint8Array(mac))}`;
}

/** The `webhook-signature` header for a delivery, one signature per secret (the newest first). */
export async function webhookSignature(secrets: readonly string[], id: string, timestampSeconds: number, body: string): Promise<string> {
  const content = new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`);
  const signatures: string[] = [];
  for (const secret of secrets) signatures.push(await signOne(secret, content));
  return signatures.join(" ");
}

/** The three headers of a delivery, and its content type. */
export async function webhookHeaders(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<Record<string, string>> {
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": await webhookSignature(secrets, id, timestampSeconds, body),
  };
}
