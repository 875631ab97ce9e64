// The folio ledger in Durable Objects: exact under concurrency.
import type { FolioLedgerStore } from "../../ports/stores.ts";
import { addHeld, ledgerId, registerId } from "../folio-ledger.ts";
import type { FolioLedger } from "./durable-objects.ts";

/** A Durable Object per account, issuer and type: the unit whose folios are handed out one call at a time. */
export function durableFolioLedgerStore(ns: DurableObjectNamespace<FolioLedger>): FolioLedgerStore {
  const ledger = (account: string, emisor: string, tipo: number) => ns.get(ns.idFromName(ledgerId(account, emisor, tipo)));
  return {
    add: (account, emisor, tipo, range) =>
      addHeld(
        () => ns.get(ns.idFromName(registerId(emisor, tipo))).register(range.desde, range.hasta, account),
        () => ledger(account, emisor, tipo).add(range),
      ),
    ranges: (account, emisor, tipo) => ledger(account, emisor, tipo).ranges(),
    cafOf: (account, emisor, tipo, folio) => ledger(account, emisor, tipo).cafOf(folio),
    allocate: (account, emisor, tipo, count, hold, today) => ledger(account, emisor, tipo).allocate(count, hold, today),
    claim: (account, emisor, tipo, folios, hold, today) => ledger(account, emisor, tipo).claim(folios, hold, today),
    settle: (account, emisor, tipo, hold) => ledger(account, emisor, tipo).settle(hold),
    release: (account, emisor, tipo, hold) => ledger(account, emisor, tipo).release(hold),
    void: (account, emisor, tipo, desde, hasta) => ledger(account, emisor, tipo).void(desde, hasta),
    setThreshold: (account, emisor, tipo, umbral) => ledger(account, emisor, tipo).setThreshold(umbral),
    threshold: (account, emisor, tipo) => ledger(account, emisor, tipo).threshold(),
  };
}
