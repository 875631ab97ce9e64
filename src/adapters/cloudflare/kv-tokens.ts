// Tokens in KV: read at the edge on every call, rarely written.
import type { TokenRecord, TokenStore } from "../../ports/stores.ts";
import { KV_MEMO_ENTRIES, KV_MEMO_MS, memo } from "./memo.ts";

// KV is eventually consistent across locations: a block or revoke reaches every edge within
// about a minute (KV's cache time), and other isolates of this location within KV_MEMO_MS.
// Writes through this store are visible in its isolate at once.
export function kvTokenStore(kv: KVNamespace, now: () => number = Date.now): TokenStore {
  // Found records only: an unknown hash (a typo, an attacker's guess) is never held.
  const byHash = memo<TokenRecord | null>({ ttlMs: KV_MEMO_MS, entries: KV_MEMO_ENTRIES, keep: (r) => r !== null, now });
  return {
    async put(record) {
      const previous = await kv.get<TokenRecord>(`id:${record.id}`, "json");
      if (previous && previous.token_hash !== record.token_hash) await kv.delete(`hash:${previous.token_hash}`);
      await kv.put(`id:${record.id}`, JSON.stringify(record));
      await kv.put(`hash:${record.token_hash}`, record.id);
      byHash.clear(); // after the writes: a read that raced them cannot leave the old record held
    },
    async getById(id) {
      return kv.get<TokenRecord>(`id:${id}`, "json");
    },
    getByHash(hash) {
      return byHash.get(hash, async () => {
        const id = await kv.get(`hash:${hash}`);
        if (!id) return null;
        const record = await kv.get<TokenRecord>(`id:${id}`, "json");
        // Shared by the requests of the isolate: frozen, so no caller can change another's.
        return record?.token_hash === hash
          ? (Object.freeze({ ...record, scopes: Object.freeze(record.scopes), plan: Object.freeze(record.plan) }) as TokenRecord)
          : null;
      });
    },
    async list() {
      const records: TokenRecord[] = [];
      let cursor: string | undefined;
      do {
        const page = await kv.list({ prefix: "id:", cursor });
        for (const key of page.keys) {
          const record = await kv.get<TokenRecord>(key.name, "json");
          if (record) records.push(record);
        }
        cursor = page.list_complete ? undefined : page.cursor;
      } while (cursor);
      return records;
    },
    async delete(id) {
      const record = await kv.get<TokenRecord>(`id:${id}`, "json");
      if (!record) return false;
      await kv.delete(`hash:${record.token_hash}`);
      await kv.delete(`id:${id}`);
      byHash.clear();
      return true;
    },
  };
}
