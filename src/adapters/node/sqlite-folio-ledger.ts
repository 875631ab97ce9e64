// The SQLite folio ledger (the file's `folio_ledgers` table, sqlite-database.ts).
import type { DatabaseSync } from "node:sqlite";
import type { FolioLedgerStore } from "../../ports/stores.ts";
import { ledgerStore, parseLedger } from "../folio-ledger.ts";
import { transaction } from "./sqlite-database.ts";

/**
 * Each ledger one row, read and written inside one IMMEDIATE transaction: two processes on the same
 * file never hand out the same folio, and a committed allocation survives a kill -9 (WAL).
 */
export function sqliteFolioLedgerStore(db: DatabaseSync): FolioLedgerStore {
  const read = db.prepare("SELECT state FROM folio_ledgers WHERE id = ?");
  const write = db.prepare("INSERT OR REPLACE INTO folio_ledgers (id, state) VALUES (?, ?)");
  return ledgerStore(async (id, work, writes) =>
    transaction(db, () => {
      const state = parseLedger((read.get(id) as { state: string } | undefined)?.state);
      const result = work(state);
      if (writes) write.run(id, JSON.stringify(state));
      return result;
    }),
  );
}
