// The idempotency attacks through the app on the Cloudflare stores (Durable Object ledger).
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { durableIdempotencyStore } from "../../src/adapters/cloudflare/durable-idempotency.ts";
import { IdempotencyLedger } from "../../src/adapters/cloudflare/durable-objects.ts";
import { durableQuotaStore } from "../../src/adapters/cloudflare/durable-quota.ts";
import { kvSettingsStore } from "../../src/adapters/cloudflare/kv-settings.ts";
import { kvTokenStore } from "../../src/adapters/cloudflare/kv-tokens.ts";
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
      await stub.begin("first", "fp", "a", noon, 60_000, 10); // creates the table and the indexes
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
        await stub.begin(`new-${i}`, "fp", "a", later, 60_000, 10);
        drops.push(before + 1 - (await rows()));
      }
      expect(Math.max(...drops)).toBe(PURGE_BATCH);
      expect(await rows()).toBe(3 * PURGE_EVERY + 1);
    },
    SLOW_MS,
  );
});

describe("Durable Object ledger answers larger than a row or an RPC message", () => {
  const noon = new Date("2026-03-15T12:00:00Z");
  /** Incompressible sealed-looking text of `bytes` random bytes' base64 (getRandomValues: 64 KiB a call). */
  const sealedText = (bytes: number) => {
    const out = new Uint8Array(bytes);
    for (let at = 0; at < bytes; at += 65_536) crypto.getRandomValues(out.subarray(at, at + 65_536));
    let binary = "";
    for (let at = 0; at < bytes; at += 0x8000) binary += String.fromCharCode(...out.subarray(at, at + 0x8000));
    return `v1.${btoa(binary)}`;
  };
  const ledgerOf = (account: string) => bindings.IDEMPOTENCY.get(bindings.IDEMPOTENCY.idFromName(account));
  /** The longest value the ledger keeps in a row, and how many parts `key` has. */
  const rows = (account: string, key: string) =>
    runInDurableObject(ledgerOf(account), (_ledger: IdempotencyLedger, state) => {
      const sql = state.storage.sql;
      return {
        longest: Math.max(
          sql.exec<{ n: number | null }>("SELECT MAX(length(response)) AS n FROM records").one().n ?? 0,
          sql.exec<{ n: number | null }>("SELECT MAX(length(data)) AS n FROM parts").one().n ?? 0,
        ),
        parts: sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM parts WHERE key = ?", key).one().n,
      };
    });

  it(
    "keeps a 64 MiB answer in rows under the 2 MB a row may hold, completes and replays it past the 32 MiB of an RPC message",
    async () => {
      const store = durableIdempotencyStore(bindings.IDEMPOTENCY);
      const account = `big-${Date.now()}`;
      const big = { status: 201, headers: {}, body: sealedText(48 * 1024 * 1024) };
      expect(big.body.length).toBeGreaterThan(64 * 1024 * 1024);
      await store.begin(account, "k", "fp", "a", noon, 60_000, 10);
      await store.complete(account, "k", "fp", "a", big, noon, 1_000);
      const kept = await rows(account, "k");
      expect(kept.longest).toBeLessThanOrEqual(1_000_000);
      expect(kept.parts).toBeGreaterThan(60);
      const begun = await store.begin(account, "k", "fp", "a", noon, 60_000, 10);
      expect(begun.state).toBe("completed");
      expect(begun.state === "completed" && begun.response.body === big.body).toBe(true);
      expect(await store.stored(account, noon)).toBe(1);
      // A new start over the expired answer drops its parts.
      await store.begin(account, "k", "other", "a", new Date(noon.getTime() + 2_000), 60_000, 10);
      expect((await rows(account, "k")).parts).toBe(0);
    },
    SLOW_MS,
  );

  it(
    "purges expired parts in batches of PURGE_BATCH with the records, parts no record holds included",
    async () => {
      const account = `purge-parts-${Date.now()}`;
      const stub = ledgerOf(account);
      const count = () =>
        runInDurableObject(
          stub,
          (_ledger: IdempotencyLedger, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM parts").one().n,
        );
      await stub.begin("first", "fp", "a", noon.getTime(), 60_000, 10); // the instance's first start purges: nothing yet
      await runInDurableObject(stub, (_ledger: IdempotencyLedger, state) => {
        for (let i = 0; i < PURGE_BATCH + 10; i++) {
          state.storage.sql.exec(
            "INSERT INTO parts (key, attempt, n, until, data) VALUES (?, 'gone', 1, ?, 'x')",
            `old-${i}`,
            noon.getTime(),
          );
        }
      });
      const later = noon.getTime() + 60_000;
      for (let i = 0; i < PURGE_EVERY; i++) await stub.begin(`new-${i}`, "fp", "a", later, 60_000, 10);
      expect(await count()).toBe(10);
    },
    SLOW_MS,
  );

  it(
    "drops the parts an attempt staged when it is abandoned; one whose lease was taken over stages and completes nothing",
    async () => {
      const account = `staged-${Date.now()}`;
      const stub = ledgerOf(account);
      const part = "x".repeat(1000);
      await stub.begin("k", "fp", "a1", noon.getTime(), 60_000, 10);
      expect(await stub.stage("k", "fp", "a1", 1, [part, part], noon.getTime() + 1_000)).toBe(true);
      expect((await rows(account, "k")).parts).toBe(2);
      await stub.abandon("k", "fp", "a1");
      expect((await rows(account, "k")).parts).toBe(0);
      // A stale holder stages, the lease is taken over, and the new holder's answer is the one kept.
      await stub.begin("k", "fp", "stale", noon.getTime(), 1_000, 10);
      await stub.stage("k", "fp", "stale", 1, [part], noon.getTime() + 60_000);
      await stub.begin("k", "fp", "new", noon.getTime() + 2_000, 60_000, 10);
      expect((await rows(account, "k")).parts).toBe(0);
      expect(await stub.stage("k", "fp", "new", 1, [part], noon.getTime() + 60_000)).toBe(true);
      expect(await stub.stage("k", "fp", "stale", 1, [part], noon.getTime() + 60_000)).toBe(false);
      expect(await stub.complete("k", "fp", '{"status":200,', "stale", 1, noon.getTime() + 2_000, 60_000)).toBe(false);
      await stub.abandon("k", "fp", "stale");
      expect(await stub.complete("k", "fp", '{"status":200,', "new", 1, noon.getTime() + 2_000, 60_000)).toBe(true);
      expect(await stub.complete("k", "fp", '{"status":200,', "stale", 1, noon.getTime() + 2_000, 60_000)).toBe(false);
      const begun = await stub.begin("k", "fp", "later", noon.getTime() + 3_000, 60_000, 10);
      expect(begun).toEqual({ state: "completed", head: '{"status":200,', attempt: "new", parts: 1 });
      expect((await rows(account, "k")).parts).toBe(1);
    },
    SLOW_MS,
  );

  it(
    "records written before they named their attempt gain the column: an old answer in parts replays under its parts' attempt",
    async () => {
      const account = `migrate-${Date.now()}`;
      const stub = ledgerOf(account);
      const head = '{"status":200,"headers":{},';
      await stub.stored(noon.getTime()); // the object starts with today's tables
      await runInDurableObject(stub, (_ledger: IdempotencyLedger, state) => {
        const sql = state.storage.sql;
        // The records table as the previous version created it, one answer kept in two parts.
        sql.exec("DROP TABLE records");
        sql.exec(
          "CREATE TABLE records (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, state TEXT NOT NULL, until INTEGER NOT NULL, response TEXT)",
        );
        sql.exec("INSERT INTO records VALUES ('k', 'fp', 'completed', ?, ?)", noon.getTime() + 60_000, head);
        sql.exec("INSERT INTO parts VALUES ('k', 'old', 1, ?, '\"body\":\"a2VwdA==\"}')", noon.getTime() + 60_000);
        new IdempotencyLedger(state, {}); // what the next start of the object runs
      });
      const begun = await durableIdempotencyStore(bindings.IDEMPOTENCY).begin(account, "k", "fp", "a", noon, 60_000, 10);
      expect(begun).toEqual({ state: "completed", response: { status: 200, headers: {}, body: "a2VwdA==" } });
    },
    SLOW_MS,
  );
});
