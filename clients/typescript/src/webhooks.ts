// Verifying the gateway's webhook deliveries (Standard Webhooks 1.0) with WebCrypto alone, so it runs in
// Node 20+, Deno, Bun, browsers and Workers. The signature is `v1,` and the base64 HMAC-SHA256 of
// `{webhook-id}.{webhook-timestamp}.{body}` under the bytes of the secret's base64 (after `whsec_`); during a
// rotation `webhook-signature` holds two, space-separated.

/** How far a delivery's timestamp may be from this clock (seconds): the specification's 5 minutes. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

/** What every delivery's body is. */
export interface WebhookEvent {
  id: string;
  type: string;
  timestamp: string;
  sequence: number;
  data: Record<string, unknown>;
}

function header(headers: Headers | Record<string, string>, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  if (!value) throw new WebhookVerificationError(`the ${name} header is missing`);
  return value;
}

/**
 * The delivery's event once its signature and time check out; else a `WebhookVerificationError`. `body` is the
 * raw request body as received (`await request.text()`): verify before parsing.
 */
export async function verifyWebhook(
  secret: string,
  headers: Headers | Record<string, string>,
  body: string,
  options: { toleranceSeconds?: number; now?: number } = {},
): Promise<WebhookEvent> {
  if (!secret.startsWith("whsec_")) throw new WebhookVerificationError("the secret is not a whsec_ secret");
  let key: Uint8Array<ArrayBuffer>;
  try {
    key = Uint8Array.from(atob(secret.slice("whsec_".length)), (c) => c.charCodeAt(0));
  } catch {
    throw new WebhookVerificationError("the secret is not base64 after whsec_");
  }
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError("webhook-timestamp is not a number of seconds");
  const now = (options.now ?? Date.now()) / 1000;
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS))
    throw new WebhookVerificationError("webhook-timestamp is too far from this clock");
  const hmac = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  for (const signature of header(headers, "webhook-signature").split(" ")) {
    const [version, value] = signature.split(",", 2);
    if (version !== "v1" || !value) continue;
    let mac: Uint8Array<ArrayBuffer>;
    try {
      mac = Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
    } catch {
      continue;
    }
    // WebCrypto's verify compares in constant time.
    if (await crypto.subtle.verify("HMAC", hmac, mac, signed)) {
      const event = JSON.parse(body) as WebhookEvent;
      if (event.id !== id) throw new WebhookVerificationError("the body's id is not the webhook-id");
      return event;
    }
  }
  throw new WebhookVerificationError("no signature matches the secret");
}
