// The SQLite settings store (the file's `settings` table, sqlite-database.ts).
import type { DatabaseSync } from "node:sqlite";
import type { SettingsStore } from "../../ports/stores.ts";

// Read on every SII call and written rarely: memoized as the tokens are (sqlite-tokens.ts), every write clearing it.
export function sqliteSettingsStore(db: DatabaseSync): SettingsStore {
  const memo = new Map<string, string | null>();
  const id = (account: string, key: string) => `${account}\u0000${key}`;
  return {
    async get<T>(account: string, key: string) {
      if (!memo.has(id(account, key))) {
        if (memo.size > 10_000) memo.clear();
        const row = db.prepare("SELECT value FROM settings WHERE account = ? AND key = ?").get(account, key) as
          | { value: string }
          | undefined;
        memo.set(id(account, key), row?.value ?? null);
      }
      const value = memo.get(id(account, key));
      return value ? (JSON.parse(value) as T) : null;
    },
    async put(account, key, value) {
      memo.delete(id(account, key));
      db.prepare(
        "INSERT INTO settings (account, key, value) VALUES (?, ?, ?) ON CONFLICT(account, key) DO UPDATE SET value = excluded.value",
      ).run(account, key, JSON.stringify(value));
    },
    async delete(account, key) {
      memo.delete(id(account, key));
      db.prepare("DELETE FROM settings WHERE account = ? AND key = ?").run(account, key);
    },
  };
}
