// The idempotency attacks through the app on the memory and SQLite stores, and the SQLite
// store's expiry: indexed, purged in bounded batches rather than by a scan on every write.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PURGE_BATCH, PURGE_EVERY } from "../../src/adapters/idempotency-expiry.ts";
import { memoryStores } from "../../src/adapters/memory/stores.ts";
import { sqliteStores } from "../../src/adapters/node/sqlite-stores.ts";
import { idempotencyAttackCases } from "../support/idempotency-attacks.ts";

describe("idempotency attacks on the memory store", () => {
  for (const c of idempotencyAttackCases(() => memoryStores())) it(c.name, c.run);
});

describe("idempotency attacks on the SQLite store", () => {
  for (const c of idempotencyAttackCases(() => sqliteStores(":memory:"))) it(c.name, c.run);
});

describe("SQLite idempotency expiry", () => {
  const response = { status: 200, headers: {}, body: "" };
  const noon = new Date("2026-03-15T12:00:00Z");

  it("reads expiry and an account's answers through indexes", () => {
    const { db } = sqliteStores(":memory:");
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail).join("; ");
    expect(plan("SELECT rowid FROM idempotency WHERE until <= 1 LIMIT 500")).toMatch(/USING (COVERING )?INDEX idempotency_expiry/);
    expect(plan("SELECT COUNT(*) FROM idempotency WHERE account = 'a' AND state = 'completed' AND until > 1")).toMatch(
      /USING (COVERING )?INDEX idempotency_answers/,
    );
  });

  it("purges expired records in batches of PURGE_BATCH every PURGE_EVERY starts, not all on one write", async () => {
    const { db, idempotency } = sqliteStores(":memory:");
    const rows = () => (db.prepare("SELECT COUNT(*) AS n FROM idempotency").get() as { n: number }).n;
    const expired = 3 * PURGE_BATCH;
    for (let i = 0; i < expired; i++) {
      await idempotency.begin("acct", `old-${i}`, "fp", noon, 60_000, Number.POSITIVE_INFINITY);
      await idempotency.complete("acct", `old-${i}`, "fp", response, noon, 1_000);
    }
    const later = new Date(noon.getTime() + 60_000);
    // Each start adds a row; whatever else a start removes is the purge's work.
    const drops: number[] = [];
    for (let i = 0; i < 3 * PURGE_EVERY; i++) {
      const before = rows();
      await idempotency.begin("acct", `new-${i}`, "fp", later, 60_000, Number.POSITIVE_INFINITY);
      drops.push(before + 1 - rows());
    }
    expect(Math.max(...drops)).toBe(PURGE_BATCH);
    expect(drops.filter((n) => n > 0)).toHaveLength(3);
    expect(rows()).toBe(3 * PURGE_EVERY);
    expect(await idempotency.stored("acct", later)).toBe(0);
  });
});

describe("stored answers of 64 MiB on the memory and SQLite stores", () => {
  const noon = new Date("2026-03-15T12:00:00Z");
  for (const [name, make] of [
    ["memory", () => memoryStores().idempotency],
    ["SQLite", () => sqliteStores(":memory:").idempotency],
  ] as const) {
    it(`${name}: completes and replays 64 MiB of sealed text whole`, async () => {
      const store = make();
      const big = { status: 201, headers: {}, body: `v1.${randomBytes(48 * 1024 * 1024).toString("base64")}` };
      expect(big.body.length).toBeGreaterThan(64 * 1024 * 1024);
      await store.begin("acct", "k", "fp", noon, 60_000, 10);
      await store.complete("acct", "k", "fp", big, noon, 60_000);
      const begun = await store.begin("acct", "k", "fp", noon, 60_000, 10);
      expect(begun.state === "completed" && begun.response.body === big.body).toBe(true);
    }, 60_000);
  }
});
