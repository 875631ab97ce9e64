// The SQLite token store (the file's `tokens` table, sqlite-database.ts).
import type { DatabaseSync } from "node:sqlite";
import type { TokenRecord, TokenStore } from "../../ports/stores.ts";

// Tokens and settings are read on every request and written rarely (through this same process,
// the admin API or a settings PUT), so reads are memoized and every write clears the memo. Another
// process writing the same file would be seen only after a restart: run one process per file.
export function sqliteTokenStore(db: DatabaseSync): TokenStore {
  const parse = (row: unknown) => (row ? (JSON.parse((row as { record: string }).record) as TokenRecord) : null);
  const selectByHash = db.prepare("SELECT record FROM tokens WHERE token_hash = ?");
  // Memoized records are shared by every request: frozen, so no caller can change another's.
  const frozen = (record: TokenRecord | null) =>
    record && (Object.freeze({ ...record, scopes: Object.freeze(record.scopes), plan: Object.freeze(record.plan) }) as TokenRecord);
  const byHash = new Map<string, TokenRecord | null>();
  return {
    async put(record) {
      byHash.clear();
      db.prepare(
        "INSERT INTO tokens (id, token_hash, record) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET token_hash = excluded.token_hash, record = excluded.record",
      ).run(record.id, record.token_hash, JSON.stringify(record));
    },
    async getById(id) {
      return parse(db.prepare("SELECT record FROM tokens WHERE id = ?").get(id));
    },
    async getByHash(hash) {
      if (!byHash.has(hash)) {
        if (byHash.size > 10_000) byHash.clear();
        byHash.set(hash, frozen(parse(selectByHash.get(hash))));
      }
      return byHash.get(hash) ?? null;
    },
    async list() {
      return db
        .prepare("SELECT record FROM tokens")
        .all()
        .map((row) => parse(row) as TokenRecord);
    },
    async delete(id) {
      byHash.clear();
      return Number(db.prepare("DELETE FROM tokens WHERE id = ?").run(id).changes) > 0;
    },
  };
}
