// The idempotency attacks through the app on the Cloudflare stores (Durable Object ledger).
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { IdempotencyLedger } from "../../src/adapters/cloudflare/durable-objects.ts";
import { durableIdempotencyStore, durableQuotaStore, kvSettingsStore, kvTokenStore } from "../../src/adapters/cloudflare/stores.ts";
import { PURGE_BATCH, PURGE_EVERY } from "../../src/adapters/idempotency-expiry.ts";
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

describe("Durable Object ledger expiry", () => {
  it(
    "drops expired records in batches of PURGE_BATCH, never all on one request",
    async () => {
      const stub = bindings.IDEMPOTENCY.get(bindings.IDEMPOTENCY.idFromName(`expiry-${Date.now()}`));
      const noon = Date.parse("2026-03-15T12:00:00Z");
      const rows = () =>
        runInDurableObject(stub, (ledger: IdempotencyLedger, state) => {
          void ledger;
          return state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM records").one().n;
        });
      await stub.begin("first", "fp", noon, 60_000, 10); // creates the table and the indexes
      await runInDurableObject(stub, (_ledger: IdempotencyLedger, state) => {
        for (let i = 0; i < 3 * PURGE_BATCH; i++) {
          state.storage.sql.exec(
            "INSERT INTO records (key, fingerprint, state, until, response) VALUES (?, 'fp', 'completed', ?, '{}')",
            `old-${i}`,
            noon,
          );
        }
      });
      const later = noon + 60_000;
      const drops: number[] = [];
      for (let i = 0; i < 3 * PURGE_EVERY; i++) {
        const before = await rows();
        await stub.begin(`new-${i}`, "fp", later, 60_000, 10);
        drops.push(before + 1 - (await rows()));
      }
      expect(Math.max(...drops)).toBe(PURGE_BATCH);
      expect(await rows()).toBe(3 * PURGE_EVERY + 1);
    },
    SLOW_MS,
  );
});
