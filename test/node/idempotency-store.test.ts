// The idempotency attacks through the app on the memory and SQLite stores, and the SQLite
// store's expiry: indexed, purged in bounded batches rather than by a scan on every write.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
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
      await idempotency.begin("acct", `old-${i}`, "fp", "a", noon, 60_000, Number.POSITIVE_INFINITY);
      await idempotency.complete("acct", `old-${i}`, "fp", "a", response, noon, 1_000);
    }
    const later = new Date(noon.getTime() + 60_000);
    // Each start adds a row; whatever else a start removes is the purge's work.
    const drops: number[] = [];
    for (let i = 0; i < 3 * PURGE_EVERY; i++) {
      const before = rows();
      await idempotency.begin("acct", `new-${i}`, "fp", "a", later, 60_000, Number.POSITIVE_INFINITY);
      drops.push(before + 1 - rows());
    }
    expect(Math.max(...drops)).toBe(PURGE_BATCH);
    expect(drops.filter((n) => n > 0)).toHaveLength(3);
    expect(rows()).toBe(3 * PURGE_EVERY);
    expect(await idempotency.stored("acct", later)).toBe(0);
  });
});

describe("SQLite idempotency records written before they named their attempt", () => {
  it("gain the attempt column when the file is opened: an old answer replays, and a taken-over attempt completes nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "idem-migrate-"));
    try {
      const path = join(dir, "old.db");
      const old = new DatabaseSync(path);
      // The table as the previous version created it, with one answer kept.
      old.exec(`CREATE TABLE idempotency (
        account TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, state TEXT NOT NULL,
        until INTEGER NOT NULL, response TEXT, PRIMARY KEY (account, key))`);
      const kept = { status: 200, headers: {}, body: "a2VwdA==" };
      old
        .prepare("INSERT INTO idempotency VALUES ('acct', 'old', 'fp', 'completed', ?, ?)")
        .run(Date.parse("2026-03-16T12:00:00Z"), JSON.stringify(kept));
      old.close();
      const noon = new Date("2026-03-15T12:00:00Z");
      const { db, idempotency } = sqliteStores(path);
      const columns = (db.prepare("PRAGMA table_info(idempotency)").all() as { name: string }[]).map((c) => c.name);
      expect(columns).toContain("attempt");
      expect(await idempotency.begin("acct", "old", "fp", "a", noon, 60_000, 10)).toEqual({ state: "completed", response: kept });
      await idempotency.begin("acct", "new", "fp", "slow", noon, 1_000, 10);
      await idempotency.begin("acct", "new", "fp", "retry", new Date(noon.getTime() + 2_000), 60_000, 10);
      expect(await idempotency.complete("acct", "new", "fp", "slow", kept, noon, 60_000)).toBe(false);
      expect(await idempotency.complete("acct", "new", "fp", "retry", kept, noon, 60_000)).toBe(true);
      db.close();
      sqliteStores(path).db.close(); // opened again: nothing more to add
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
      await store.begin("acct", "k", "fp", "a", noon, 60_000, 10);
      await store.complete("acct", "k", "fp", "a", big, noon, 60_000);
      const begun = await store.begin("acct", "k", "fp", "a", noon, 60_000, 10);
      expect(begun.state === "completed" && begun.response.body === big.body).toBe(true);
    }, 60_000);
  }
});
