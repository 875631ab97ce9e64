// The inbox store's contract and property (test/support/inbox-store-contract.ts) on the Node SQLite file and
// in memory; and the SQL store's purge, bounded per write.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { memoryInboxStore } from "../../src/adapters/memory/inbox.ts";
import { openDatabase } from "../../src/adapters/node/sqlite-database.ts";
import { sqliteInboxStore } from "../../src/adapters/node/sqlite-inbox.ts";
import { INBOX_PURGE_BATCH } from "../../src/adapters/sql-inbox.ts";
import { createNodeDeps } from "../../src/entry/node-server.ts";
import { freshAccount, inboxKey, inboxStoreContract, inboxStoreProperty } from "../support/inbox-store-contract.ts";

let latest: DatabaseSync | undefined;
function freshSqlite() {
  latest = openDatabase(":memory:");
  return sqliteInboxStore(latest);
}
const held = async (account: string) =>
  (latest!.prepare("SELECT COUNT(*) AS n FROM inbox_documents WHERE account = ?").get(account) as { n: number }).n;

describe("the inbox on SQLite", () => {
  inboxStoreContract(freshSqlite, { erasure: { by: "writes", held } });
  inboxStoreProperty(freshSqlite, 30);

  it("erases at most a batch of expired records per write", async () => {
    const store = freshSqlite();
    const a = freshAccount();
    const T0 = Date.UTC(2026, 11, 1);
    const n = INBOX_PURGE_BATCH + 30;
    for (let folio = 1; folio <= n; folio++) await store.put(a, inboxKey(folio), { facts: {}, xml: null, expires: T0 + 1 }, null, T0);
    const write = (folio: number) => store.put(a, inboxKey(folio), { facts: {}, xml: null, expires: T0 + 9e9 }, null, T0 + 2);
    await write(n + 1);
    expect(await held(a)).toBe(n - INBOX_PURGE_BATCH + 1);
    await write(n + 2);
    expect(await held(a)).toBe(2);
  });

  it("is the Node server's inbox, in its file: another process's deps on the file read it and number on from it", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "sii-gw-inbox-")), "state.sqlite");
    const a = freshAccount();
    const T0 = Date.UTC(2026, 11, 1);
    const write = { facts: { n: 1 }, xml: "<DTE/>", expires: T0 + 9e9 };
    const options = { env: { SII_UPSTREAM: "sandbox" }, database: path, publicDir: ".", log: { log: () => {} } };
    const one = (await createNodeDeps(options)).inbox;
    await one.put(a, inboxKey(1), write, null, T0);
    const two = (await createNodeDeps(options)).inbox;
    expect((await two.get(a, inboxKey(1), T0))?.facts).toEqual({ n: 1 });
    const put = await two.put(a, inboxKey(2), write, null, T0);
    expect(put.state === "written" && put.document.seq).toBe(2);
  });
});

describe("the inbox in memory", () => {
  inboxStoreContract(() => memoryInboxStore());
  inboxStoreProperty(() => memoryInboxStore(), 50);
});
