// In-memory folio ledger: for unit tests and single-process experiments. Synchronous inside each method,
// so each call is atomic on its own.
import type { FolioLedgerStore } from "../../ports/stores.ts";
import { ledgerStore, parseLedger } from "../folio-ledger.ts";
import { copy } from "./copy.ts";

/** Each ledger kept as its JSON text, so no caller holds a live reference into it. */
export function memoryFolioLedgerStore(): FolioLedgerStore {
  const ledgers = new Map<string, string>();
  return ledgerStore(async (id, work, writes) => {
    const state = parseLedger(ledgers.get(id));
    const result = work(state);
    if (writes) ledgers.set(id, JSON.stringify(state));
    return copy(result);
  });
}
