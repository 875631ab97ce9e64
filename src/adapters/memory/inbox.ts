// The inbox in one process's memory: the tests' deps. Every method runs to its end without awaiting, so
// it is as atomic as the SQL store's transactions (the same contract: test/support/inbox-store-contract.ts).
import type { InboxKey, InboxStore, ReceivedDocument } from "../../ports/inbox.ts";
import { copy } from "./copy.ts";

export function memoryInboxStore(): InboxStore {
  const records = new Map<string, ReceivedDocument>();
  /** The last seq and version given per inbox, kept when its records go (as the SQL store's counters). */
  const counters = new Map<string, { seq: number; version: number }>();
  const id = (account: string, key: InboxKey) => JSON.stringify([account, key.receptor, key.emisor, key.dte, key.folio]);
  const counterOf = (account: string, receptor: string) => {
    const k = JSON.stringify([account, receptor]);
    const counter = counters.get(k) ?? { seq: 0, version: 0 };
    counters.set(k, counter);
    return counter;
  };
  /** What the SQL store's writes do: expired records go. */
  const erase = (now: number) => {
    for (const [k, record] of records) if (record.expires <= now) records.delete(k);
  };

  return {
    async get(account, key, now) {
      const record = records.get(id(account, key));
      return record && record.expires > now ? copy(record) : null;
    },
    async put(account, key, write, expected, now) {
      erase(now);
      const k = id(account, key);
      const found = records.get(k);
      if (expected === null ? found : found?.version !== expected) return { state: "conflict" };
      const counter = counterOf(account, key.receptor);
      const record: ReceivedDocument = {
        account,
        receptor: key.receptor,
        emisor: key.emisor,
        dte: key.dte,
        folio: key.folio,
        seq: found ? found.seq : ++counter.seq,
        facts: copy(write.facts),
        xml: write.xml,
        created_at: found ? found.created_at : now,
        updated_at: now,
        expires: write.expires,
        version: ++counter.version,
      };
      records.set(k, record);
      return { state: "written", document: copy(record) };
    },
    async list(account, receptor, { before, limit }, now) {
      if (limit <= 0) return [];
      return [...records.values()]
        .filter((r) => r.account === account && r.receptor === receptor && r.expires > now && (before === undefined || r.seq < before))
        .sort((a, b) => b.seq - a.seq)
        .slice(0, limit)
        .map((r) => copy({ ...r, xml: null }));
    },
    async delete(account, key) {
      return records.delete(id(account, key));
    },
  };
}
