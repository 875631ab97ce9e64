// The SQLite quota store (the file's `quota` table, sqlite-database.ts).
import type { DatabaseSync } from "node:sqlite";
import type { QuotaStore } from "../../ports/stores.ts";
import { fits, quotaState, type WindowKeys, windowKeys } from "../quota-windows.ts";
import { transaction } from "./sqlite-database.ts";

export function sqliteQuotaStore(db: DatabaseSync): QuotaStore {
  // Both windows in one statement each way: every charge reads and writes the pair, and each
  // statement run costs about as much as the SQL in it (node:sqlite call overhead).
  const read = db.prepare(
    "SELECT (SELECT used FROM quota WHERE token_id = ?1 AND window = ?2) AS day, (SELECT used FROM quota WHERE token_id = ?1 AND window = ?3) AS month",
  );
  const add = db.prepare(
    "INSERT INTO quota (token_id, window, used) VALUES (?1, ?2, ?4), (?1, ?3, ?4) ON CONFLICT(token_id, window) DO UPDATE SET used = MAX(0, used + excluded.used)",
  );
  // What this process last read or wrote per token and window pair: a peek (the quota headers of
  // every uncharged answer) is then a lookup. Like the token memo (sqlite-tokens.ts), it assumes one process per
  // file; charges always read and write the file inside their transaction.
  const known = new Map<string, { day: number; month: number }>();
  const remember = (tokenId: string, keys: WindowKeys, counts: { day: number; month: number }) => {
    if (known.size > 10_000) known.clear();
    known.set(`${tokenId}\u0000${keys.day}\u0000${keys.month}`, counts);
    return counts;
  };
  const used = (tokenId: string, keys: WindowKeys) => {
    const row = read.get(tokenId, keys.day, keys.month) as { day: number | null; month: number | null };
    return remember(tokenId, keys, { day: Number(row.day ?? 0), month: Number(row.month ?? 0) });
  };
  return {
    async consume(tokenId, units, plan, now) {
      const keys = windowKeys(now);
      return transaction(db, () => {
        const { day, month } = used(tokenId, keys);
        if (!fits(plan, day, month, units)) return { allowed: false, ...quotaState(keys, plan, day, month) };
        add.run(tokenId, keys.day, keys.month, units);
        remember(tokenId, keys, { day: day + units, month: month + units });
        return { allowed: true, ...quotaState(keys, plan, day + units, month + units) };
      });
    },
    async refund(tokenId, units, consumedAt) {
      const keys = windowKeys(consumedAt);
      add.run(tokenId, keys.day, keys.month, -units);
      // The file clamps at zero per row; reading it back keeps the memo exact.
      used(tokenId, keys);
    },
    async peek(tokenId, plan, now) {
      const keys = windowKeys(now);
      const { day, month } = known.get(`${tokenId}\u0000${keys.day}\u0000${keys.month}`) ?? used(tokenId, keys);
      return quotaState(keys, plan, day, month);
    },
  };
}
