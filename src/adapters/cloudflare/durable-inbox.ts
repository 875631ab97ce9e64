// The inbox in a Durable Object per account (the object: src/entry/worker-inbox.ts): the InboxStore the
// Worker's routes use, each call sent to the account's object. Invariant: an account's records live in its
// object alone, so every call for it is one object's synchronous SQL work, served one at a time.
import type { InboxKey, InboxListOptions, InboxPut, InboxStore, InboxWrite, ReceivedDocument } from "../../ports/inbox.ts";

/** What an account's object answers over RPC: InboxStore on its own records. Declared here, not imported from the class (entry code). */
export interface AccountInboxRpc extends Rpc.DurableObjectBranded {
  get(account: string, key: InboxKey, now: number): ReceivedDocument | null;
  put(account: string, key: InboxKey, write: InboxWrite, expected: number | null, now: number): InboxPut;
  list(account: string, receptor: string, options: InboxListOptions, now: number): ReceivedDocument[];
  delete(account: string, key: InboxKey): boolean;
}

/** The Worker's InboxStore: each account's calls go to its object (`idFromName(account)`). */
export function durableInboxStore(ns: DurableObjectNamespace<AccountInboxRpc>): InboxStore {
  const of = (account: string) => ns.get(ns.idFromName(account));
  return {
    get: (account, key, now) => of(account).get(account, key, now),
    put: (account, key, write, expected, now) => of(account).put(account, key, write, expected, now),
    list: (account, receptor, options, now) => of(account).list(account, receptor, options, now),
    delete: (account, key) => of(account).delete(account, key),
  };
}
