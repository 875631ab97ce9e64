// The SQLite cache (the file's `cache` table, sqlite-database.ts).
import type { DatabaseSync } from "node:sqlite";
import type { CacheStore } from "../../ports/stores.ts";

export function sqliteCacheStore(db: DatabaseSync): CacheStore {
  const select = db.prepare("SELECT value FROM cache WHERE key = ? AND (until IS NULL OR until > ?)");
  const upsert = db.prepare("INSERT OR REPLACE INTO cache (key, value, until) VALUES (?, ?, ?)");
  return {
    async get(key, now) {
      const row = select.get(key, now.getTime()) as { value: string } | undefined;
      return row?.value ?? null;
    },
    async put(key, value, now, ttlMs) {
      upsert.run(key, value, ttlMs === undefined ? null : now.getTime() + ttlMs);
    },
  };
}
