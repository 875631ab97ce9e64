// Token records and settings an isolate read from KV are held a few seconds (src/adapters/cloudflare/memo.ts):
// one account never gets another's, an unknown token is never held, writes through the store show
// at once, and another isolate sees them within KV_MEMO_MS (memo.ts).
import { describe, expect, it } from "vitest";
import { kvSettingsStore } from "../../src/adapters/cloudflare/kv-settings.ts";
import { kvTokenStore } from "../../src/adapters/cloudflare/kv-tokens.ts";
import { KV_MEMO_MS } from "../../src/adapters/cloudflare/memo.ts";
import type { TokenRecord } from "../../src/ports/stores.ts";

/** KV's read and write calls over a Map, counting reads. */
function fakeKv() {
  const data = new Map<string, string>();
  const counts = { reads: 0 };
  const kv = {
    async get(key: string, type?: "json") {
      counts.reads++;
      const text = data.get(key) ?? null;
      return text !== null && type === "json" ? JSON.parse(text) : text;
    },
    async put(key: string, value: string) {
      data.set(key, value);
    },
    async delete(key: string) {
      data.delete(key);
    },
  };
  return { kv: kv as unknown as KVNamespace, counts };
}

const record = (id: string, account: string, hash: string): TokenRecord => ({
  id,
  name: id,
  account,
  scopes: ["sii:read"],
  plan: { daily_units: 100, monthly_units: 1000 },
  blocked: false,
  created_at: "2026-11-01T00:00:00.000Z",
  token_hash: hash,
  hint: "abcd",
});

describe("KV reads held by the isolate", () => {
  it("holds a token record a few seconds, never an unknown one, and drops it on a write", async () => {
    const { kv, counts } = fakeKv();
    let clock = 0;
    const tokens = kvTokenStore(kv, () => clock);
    const other = kvTokenStore(kv, () => clock); // another isolate over the same namespace
    await tokens.put(record("t1", "acme", "hash-acme"));
    await tokens.put(record("t2", "globex", "hash-globex"));
    expect((await tokens.getByHash("hash-acme"))?.account).toBe("acme");
    const reads = counts.reads;
    expect((await tokens.getByHash("hash-acme"))?.account).toBe("acme");
    expect(counts.reads).toBe(reads); // held
    expect((await tokens.getByHash("hash-globex"))?.account).toBe("globex"); // each hash its own record
    expect(counts.reads).toBe(reads + 2);
    // An unknown hash is read each time: a guess is never held, a token created meanwhile is found.
    expect(await tokens.getByHash("hash-nobody")).toBeNull();
    expect(await tokens.getByHash("hash-nobody")).toBeNull();
    expect(counts.reads).toBe(reads + 4);
    // A held record cannot be changed by one caller for the next.
    const held = await tokens.getByHash("hash-acme");
    expect(() => held?.scopes.push("sii:write")).toThrow();
    // Blocked through this store: seen at once here, within KV_MEMO_MS by the other isolate.
    expect((await other.getByHash("hash-acme"))?.blocked).toBe(false);
    await tokens.put({ ...record("t1", "acme", "hash-acme"), blocked: true });
    expect((await tokens.getByHash("hash-acme"))?.blocked).toBe(true);
    expect((await other.getByHash("hash-acme"))?.blocked).toBe(false);
    clock += KV_MEMO_MS;
    expect((await other.getByHash("hash-acme"))?.blocked).toBe(true);
    // Revoked: gone at once here.
    await tokens.delete("t1");
    expect(await tokens.getByHash("hash-acme")).toBeNull();
  });

  it("holds each account's settings apart, none included, and drops them on a write", async () => {
    const { kv, counts } = fakeKv();
    const settings = kvSettingsStore(kv, () => 0);
    expect(await settings.get("acme", "proxy")).toBeNull();
    expect(await settings.get("acme", "proxy")).toBeNull();
    expect(counts.reads).toBe(1);
    await settings.put("acme", "proxy", { enabled: true, url: "http://proxy.acme.cl:3128" });
    expect(await settings.get("acme", "proxy")).toEqual({ enabled: true, url: "http://proxy.acme.cl:3128" });
    expect(await settings.get("globex", "proxy")).toBeNull();
    // Each caller gets its own copy: changing one does not change what the next one reads.
    const mine = await settings.get<{ url: string }>("acme", "proxy");
    if (mine) mine.url = "http://changed:1";
    expect(await settings.get("acme", "proxy")).toEqual({ enabled: true, url: "http://proxy.acme.cl:3128" });
    await settings.delete("acme", "proxy");
    expect(await settings.get("acme", "proxy")).toBeNull();
  });
});
