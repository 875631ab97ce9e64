// Signing by Standard Webhooks 1.0, checked by an independent verifier (the specification's own npm
// package, `standardwebhooks`), and the retry schedule the deliveries follow.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newWebhookSecret, WEBHOOK_SECRET_PREFIX, webhookHeaders, webhookSignature } from "../../src/lib/standard-webhooks.ts";
import { MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_MS, retryAfterMs, retryDelayMs } from "../../src/lib/webhook-schedule.ts";

const body = JSON.stringify({ type: "envio.aceptado", data: { trackId: "0123456789", rut: "76543210-3" }, note: "ñandú €" });
const id = "msg_2Ks8dPzq0fWbL1vXyZ";
/** Now, in seconds: the verifier refuses a timestamp more than 5 minutes off its clock. */
const now = () => Math.floor(Date.now() / 1000);

function verify(secret: string, payload: string, headers: Record<string, string>): unknown {
  return new Webhook(secret).verify(payload, headers);
}

describe("Standard Webhooks signing", () => {
  it("makes a secret of whsec_ and base64 of 32 bytes, a new one each time", () => {
    const secret = newWebhookSecret();
    expect(secret.startsWith(WEBHOOK_SECRET_PREFIX)).toBe(true);
    expect(Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), "base64")).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it("signs what the reference verifier accepts, with the headers it reads", async () => {
    const secret = newWebhookSecret();
    const ts = now();
    const headers = await webhookHeaders([secret], id, ts, body);
    expect(headers).toMatchObject({ "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(ts) });
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verify(secret, body, headers)).toEqual(JSON.parse(body));
    // The same bytes as the reference signer's.
    expect(headers["webhook-signature"]).toBe(new Webhook(secret).sign(id, new Date(ts * 1000), body));
  });

  it("signs once per secret in a rotation, and each secret alone verifies", async () => {
    const [older, newer] = [newWebhookSecret(), newWebhookSecret()];
    const ts = now();
    const headers = await webhookHeaders([newer, older], id, ts, body);
    const signatures = headers["webhook-signature"]?.split(" ") ?? [];
    expect(signatures).toHaveLength(2);
    expect(signatures[0]).toBe(await webhookSignature([newer], id, ts, body));
    expect(signatures[1]).toBe(await webhookSignature([older], id, ts, body));
    expect(verify(newer, body, headers)).toEqual(JSON.parse(body));
    expect(verify(older, body, headers)).toEqual(JSON.parse(body));
    expect(() => verify(newWebhookSecret(), body, headers)).toThrow();
  });

  it("fails verification when the body, the timestamp, the id or the secret differ", async () => {
    const secret = newWebhookSecret();
    const ts = now();
    const headers = await webhookHeaders([secret], id, ts, body);
    expect(() => verify(secret, body.replace("0123456789", "0123456788"), headers)).toThrow();
    expect(() => verify(secret, `${body} `, headers)).toThrow();
    // One second off: inside the verifier's tolerance, so only the signature can refuse it.
    expect(() => verify(secret, body, { ...headers, "webhook-timestamp": String(ts - 1) })).toThrow();
    expect(() => verify(secret, body, { ...headers, "webhook-id": `${id}x` })).toThrow();
    expect(() => verify(newWebhookSecret(), body, headers)).toThrow();
  });

  it("refuses a secret that is not whsec_", async () => {
    await expect(webhookSignature(["not-a-secret"], id, now(), body)).rejects.toThrow(/whsec_/);
  });
});

describe("the retry schedule", () => {
  it("waits each scheduled delay, within ±10 %, and grows with every attempt", () => {
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const base = RETRY_DELAYS_MS[attempt - 1] ?? 0;
      expect(retryDelayMs(attempt, () => 0.5)).toBe(base);
      expect(retryDelayMs(attempt, () => 0)).toBe(Math.round(base * 0.9));
      expect(retryDelayMs(attempt, () => 0.999999)).toBe(Math.round(base * (0.9 + 0.2 * 0.999999)));
      const jittered = retryDelayMs(attempt) ?? 0;
      expect(jittered).toBeGreaterThanOrEqual(base * 0.9 - 1);
      expect(jittered).toBeLessThanOrEqual(base * 1.1 + 1);
      if (attempt > 1) expect(retryDelayMs(attempt, () => 0.5)).toBeGreaterThan(retryDelayMs(attempt - 1, () => 0.5) ?? 0);
    }
    expect(RETRY_DELAYS_MS[0]).toBe(5_000);
    expect(RETRY_DELAYS_MS.at(-1)).toBe(24 * 3_600_000);
    expect(retryDelayMs(MAX_ATTEMPTS)).toBeNull();
    expect(retryDelayMs(0)).toBeNull();
  });

  it("reads Retry-After as seconds or an HTTP date, capped at 24 h", () => {
    const t = Date.UTC(2026, 2, 1, 12, 0, 0);
    expect(retryAfterMs(null, t)).toBeNull();
    expect(retryAfterMs("", t)).toBeNull();
    expect(retryAfterMs("120", t)).toBe(120_000);
    expect(retryAfterMs(" 0 ", t)).toBe(0);
    expect(retryAfterMs("86401", t)).toBe(24 * 3_600_000);
    expect(retryAfterMs(new Date(t + 3_600_000).toUTCString(), t)).toBe(3_600_000);
    expect(retryAfterMs(new Date(t + 3 * 86_400_000).toUTCString(), t)).toBe(24 * 3_600_000);
    expect(retryAfterMs(new Date(t - 60_000).toUTCString(), t)).toBe(0);
    expect(retryAfterMs("soon", t)).toBeNull();
    expect(retryAfterMs("in a while", t)).toBeNull();
    expect(retryAfterMs("-5", t)).toBeNull();
    expect(retryAfterMs("1.5", t)).toBeNull();
    expect(retryAfterMs("x".repeat(65), t)).toBeNull();
  });

  it("plans the next attempt at the longer of the schedule and Retry-After, and none after the last", () => {
    const t = 1_000_000;
    const even = () => 0.5;
    expect(nextAttemptAt(1, null, t, even)).toBe(t + 5_000);
    expect(nextAttemptAt(1, "600", t, even)).toBe(t + 600_000);
    expect(nextAttemptAt(2, "1", t, even)).toBe(t + 5 * 60_000);
    expect(nextAttemptAt(2, "nonsense", t, even)).toBe(t + 5 * 60_000);
    expect(nextAttemptAt(MAX_ATTEMPTS - 1, null, t, even)).toBe(t + 24 * 3_600_000);
    expect(nextAttemptAt(MAX_ATTEMPTS, null, t, even)).toBeNull();
    expect(nextAttemptAt(MAX_ATTEMPTS, "60", t, even)).toBeNull();
  });
});
