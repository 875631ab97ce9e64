// A receiver's check of a delivery, by the npm `standardwebhooks` package (an implementation of Standard
// Webhooks 1.0 other than ours), its clock set to the delivery's own timestamp: the sandbox's clock runs ahead.
import { Webhook } from "standardwebhooks";
import { vi } from "vitest";

export function verifies(secret: string, delivery: { body: string; headers: Record<string, string | string[] | undefined> }): boolean {
  const headers = Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name, String(value)]));
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Number(headers["webhook-timestamp"]) * 1000);
  try {
    new Webhook(secret).verify(delivery.body, headers);
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}
