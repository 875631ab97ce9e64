// The inbox on Workers in workerd: the store's contract and property on a real Durable Object per account,
// called over RPC as the Worker calls it (durableInboxStore), the object refusing another account's calls,
// and its records kept across an eviction.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { durableInboxStore } from "../../src/adapters/cloudflare/durable-inbox.ts";
import { type AccountInbox, type WorkerEnv, workerDeps } from "../../src/entry/worker.ts";
import { freshAccount, inboxKey, inboxStoreContract, inboxStoreProperty } from "../support/inbox-store-contract.ts";

const bindings = env as unknown as WorkerEnv;
const objectOf = (account: string) => bindings.INBOX.get(bindings.INBOX.idFromName(account));
const store = () => durableInboxStore(bindings.INBOX);
/** Each case makes dozens of Durable Object round trips: on a busy 2-core machine they take seconds. */
const SLOW_MS = 60_000;

/** The records the account's object holds, read raw in the object. */
const held = (account: string) =>
  runInDurableObject(objectOf(account), (_o: AccountInbox, state) =>
    Number(state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM inbox_documents").one().n),
  );

/**
 * What the object's own method throws, called in the object: a rejection that crosses RPC is also
 * reported by the test pool as unhandled (cloudflare/workers-sdk#14736).
 */
const refusal = (account: string, call: (object: AccountInbox) => unknown) =>
  runInDurableObject(objectOf(account), async (object: AccountInbox) => {
    try {
      await call(object);
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  });

const T0 = Date.UTC(2026, 11, 1);
const write = { facts: { n: 1 }, xml: "<DTE/>", expires: T0 + 3600_000 };

describe("the inbox in a Durable Object per account", () => {
  inboxStoreContract(store, { erasure: { by: "writes", held } });
  inboxStoreProperty(store, 15);
});

describe("the inbox object of an account", () => {
  it("refuses a write, or a question, of another account", async () => {
    const a = freshAccount();
    const key = inboxKey(1);
    expect((await store().put(a, key, write, null, T0)).state).toBe("written");
    const b = freshAccount();
    expect(await refusal(a, (o) => o.put(b, key, write, null, T0))).toMatch(/another account/);
    expect(await refusal(a, (o) => o.get(b, key, T0))).toMatch(/another account/);
    expect(await refusal(a, (o) => o.list(b, key.receptor, { limit: 10 }, T0))).toMatch(/another account/);
    expect(await refusal(a, (o) => o.delete(b, key))).toMatch(/another account/);
    expect((await store().list(a, key.receptor, { limit: 10 }, T0)).map((d) => d.folio)).toEqual([1]);
  });

  it("is the Worker deps' inbox, each account's calls in its own object", async () => {
    const deps = await workerDeps(bindings);
    const a = freshAccount();
    expect((await deps.inbox.put(a, inboxKey(1), write, null, T0)).state).toBe("written");
    expect(await held(a)).toBe(1);
    expect(await store().get(a, inboxKey(1), T0)).toMatchObject({ account: a, seq: 1, facts: { n: 1 } });
  });

  it(
    "keeps its records and numbers across an eviction, and still knows whose it is",
    async () => {
      const a = freshAccount();
      for (const folio of [1, 2]) await store().put(a, inboxKey(folio), write, null, T0);
      await evictDurableObject(objectOf(a));
      const put = await store().put(a, inboxKey(3), write, null, T0);
      expect(put.state === "written" && put.document.seq).toBe(3);
      expect((await store().list(a, inboxKey(1).receptor, { limit: 10 }, T0)).map((d) => d.seq)).toEqual([3, 2, 1]);
      expect(await refusal(a, (o) => o.get(freshAccount(), inboxKey(1), T0))).toMatch(/another account/);
    },
    SLOW_MS,
  );
});
