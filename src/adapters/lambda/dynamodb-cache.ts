// The DynamoDB table's cache items (layout in dynamodb-stores.ts).
import type { CacheStore } from "../../ports/stores.ts";
import { type Call, type GetItem, key, N, S, text } from "./dynamodb-wire.ts";

// Cache: `until_ms` is checked on read (a DynamoDB TTL removes dead entries only eventually).
export function dynamoCacheStore(call: Call, TableName: string, getItem: GetItem): CacheStore {
  const cacheKey = (name: string) => key(`cache#${name}`, "cache");
  return {
    async get(name, now) {
      const item = await getItem(cacheKey(name));
      const until = text(item, "until_ms");
      if (until !== undefined && until !== "" && Number(until) <= now.getTime()) return null;
      return text(item, "value") ?? null;
    },
    async put(name, value, now, ttlMs) {
      const until = ttlMs === undefined ? "" : String(now.getTime() + ttlMs);
      const expiry = ttlMs === undefined ? {} : { expires_at: N(Math.ceil((now.getTime() + ttlMs) / 1000) + 86_400) };
      await call("PutItem", { TableName, Item: { ...cacheKey(name), value: S(value), until_ms: S(until), ...expiry } });
    },
  };
}

// --- Table ---------------------------------------------------------------------------------
