// The idempotency attacks through the app on the Cloudflare stores (Durable Object ledger).
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { durableIdempotencyStore, durableQuotaStore, kvSettingsStore, kvTokenStore } from "../../src/adapters/cloudflare/stores.ts";
import type { WorkerEnv } from "../../src/entry/worker.ts";
import { idempotencyAttackCases } from "../support/idempotency-attacks.ts";

const bindings = env as unknown as WorkerEnv;
/** Each case makes dozens of Durable Object round trips: on a busy 2-core machine they take seconds. */
const SLOW_MS = 60_000;

describe("idempotency attacks on the Durable Object ledger", () => {
  const stores = () => ({
    tokens: kvTokenStore(bindings.TOKENS),
    settings: kvSettingsStore(bindings.SETTINGS),
    quota: durableQuotaStore(bindings.QUOTA),
    idempotency: durableIdempotencyStore(bindings.IDEMPOTENCY),
  });
  for (const c of idempotencyAttackCases(stores)) it(c.name, c.run, SLOW_MS);
});
