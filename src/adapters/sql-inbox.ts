// The inbox (received documents) in SQLite, one schema for the two engines that speak it: the Node file
// (every write in an IMMEDIATE transaction: atomic against other processes on the file) and an account's
// Durable Object (its methods are synchronous, so no two interleave). The invariants are InboxStore's
// (src/ports/inbox.ts): a write lands only over the version it read, a first filing takes the inbox's next
// seq in the same transaction, and an expired record is never answered and is erased by later writes.

import type { InboxKey, InboxListOptions, InboxPut, InboxWrite, ReceivedDocument } from "../ports/inbox.ts";
import type { SqlEngine } from "./sql-jobs.ts";

export const INBOX_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS inbox_documents (
    account TEXT NOT NULL, receptor TEXT NOT NULL, emisor TEXT NOT NULL, dte INTEGER NOT NULL, folio INTEGER NOT NULL,
    seq INTEGER NOT NULL, facts TEXT NOT NULL, xml TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    expires INTEGER NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (account, receptor, emisor, dte, folio))`,
  // The list's order and cursor; unique, so two records of an inbox never share a seq.
  "CREATE UNIQUE INDEX IF NOT EXISTS inbox_documents_seq ON inbox_documents (account, receptor, seq)",
  "CREATE INDEX IF NOT EXISTS inbox_documents_expires ON inbox_documents (expires)",
  // The last seq and version given per inbox: kept when records go, so neither is ever given twice.
  `CREATE TABLE IF NOT EXISTS inbox_counters (
    account TEXT NOT NULL, receptor TEXT NOT NULL, seq INTEGER NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (account, receptor))`,
];

/** Expired records erased per write: bounded work, never all at once. */
export const INBOX_PURGE_BATCH = 100;

type Row = Omit<ReceivedDocument, "facts"> & { facts: string };

const KEY = "account = ? AND receptor = ? AND emisor = ? AND dte = ? AND folio = ?";
const keyParams = (account: string, key: InboxKey) => [account, key.receptor, key.emisor, key.dte, key.folio] as const;

const documentOf = (row: Row): ReceivedDocument => ({
  account: row.account,
  receptor: row.receptor,
  emisor: row.emisor,
  dte: row.dte,
  folio: row.folio,
  seq: row.seq,
  facts: JSON.parse(row.facts),
  xml: row.xml,
  created_at: row.created_at,
  updated_at: row.updated_at,
  expires: row.expires,
  version: row.version,
});

/** The store's methods, synchronous: the Node adapter wraps them in promises, a Durable Object serves them as RPC. */
export function sqlInbox(sql: SqlEngine) {
  const purge = (now: number) =>
    sql.run(
      `DELETE FROM inbox_documents WHERE rowid IN (SELECT rowid FROM inbox_documents WHERE expires <= ? LIMIT ${INBOX_PURGE_BATCH})`,
      now,
    );

  /**
   * The inbox's next seq (a first filing) or version (every write). Versions come from the inbox, not the
   * record, so a record filed again after a delete never repeats a version its earlier life had.
   */
  const next = (account: string, receptor: string, what: "seq" | "version"): number => {
    const counter = sql.all<{ seq: number; version: number }>(
      "SELECT seq, version FROM inbox_counters WHERE account = ? AND receptor = ?",
      account,
      receptor,
    )[0] ?? { seq: 0, version: 0 };
    const value = counter[what] + 1;
    sql.run(
      "INSERT OR REPLACE INTO inbox_counters (account, receptor, seq, version) VALUES (?, ?, ?, ?)",
      account,
      receptor,
      what === "seq" ? value : counter.seq,
      what === "version" ? value : counter.version,
    );
    return value;
  };

  return {
    get(account: string, key: InboxKey, now: number): ReceivedDocument | null {
      const row = sql.all<Row>(`SELECT * FROM inbox_documents WHERE ${KEY} AND expires > ?`, ...keyParams(account, key), now)[0];
      return row ? documentOf(row) : null;
    },

    put(account: string, key: InboxKey, write: InboxWrite, expected: number | null, now: number): InboxPut {
      return sql.atomic(() => {
        purge(now);
        const found = sql.all<{ seq: number; version: number; created_at: number; expires: number }>(
          `SELECT seq, version, created_at, expires FROM inbox_documents WHERE ${KEY}`,
          ...keyParams(account, key),
        )[0];
        // An expired record the purge has not reached yet is no record.
        const live = found && found.expires > now ? found : undefined;
        if (expected === null ? live : live?.version !== expected) return { state: "conflict" };
        if (found && !live) sql.run(`DELETE FROM inbox_documents WHERE ${KEY}`, ...keyParams(account, key));
        const facts = JSON.stringify(write.facts);
        const document: ReceivedDocument = {
          account,
          receptor: key.receptor,
          emisor: key.emisor,
          dte: key.dte,
          folio: key.folio,
          seq: live ? live.seq : next(account, key.receptor, "seq"),
          facts: JSON.parse(facts),
          xml: write.xml,
          created_at: live ? live.created_at : now,
          updated_at: now,
          expires: write.expires,
          version: next(account, key.receptor, "version"),
        };
        if (live)
          sql.run(
            `UPDATE inbox_documents SET facts = ?, xml = ?, updated_at = ?, expires = ?, version = ? WHERE ${KEY}`,
            facts,
            write.xml,
            now,
            write.expires,
            document.version,
            ...keyParams(account, key),
          );
        else
          sql.run(
            `INSERT INTO inbox_documents (account, receptor, emisor, dte, folio, seq, facts, xml, created_at, updated_at, expires, version)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            ...keyParams(account, key),
            document.seq,
            facts,
            write.xml,
            now,
            now,
            write.expires,
            document.version,
          );
        return { state: "written", document };
      });
    },

    list(account: string, receptor: string, options: InboxListOptions, now: number): ReceivedDocument[] {
      if (options.limit <= 0) return [];
      // Newest first down the seq index; the XML is left unread.
      return sql
        .all<Row>(
          `SELECT account, receptor, emisor, dte, folio, seq, facts, NULL AS xml, created_at, updated_at, expires, version
           FROM inbox_documents WHERE account = ? AND receptor = ? AND seq < ? AND expires > ? ORDER BY seq DESC LIMIT ?`,
          account,
          receptor,
          options.before ?? Number.MAX_SAFE_INTEGER,
          now,
          options.limit,
        )
        .map(documentOf);
    },

    delete(account: string, key: InboxKey): boolean {
      return sql.atomic(() => {
        const found = sql.all<{ seq: number }>(`SELECT seq FROM inbox_documents WHERE ${KEY}`, ...keyParams(account, key)).length > 0;
        if (found) sql.run(`DELETE FROM inbox_documents WHERE ${KEY}`, ...keyParams(account, key));
        return found;
      });
    },
  };
}

export type SqlInbox = ReturnType<typeof sqlInbox>;
