// The inbox in the Node SQLite file (the schema and the methods: src/adapters/sql-inbox.ts).
import type { DatabaseSync } from "node:sqlite";
import type { InboxStore } from "../../ports/inbox.ts";
import { sqlInbox } from "../sql-inbox.ts";
import { sqlEngine } from "./sqlite-database.ts";

/** Two processes on one file: each write is one IMMEDIATE transaction, so a read-modify-write loses to any write since its read. */
export function sqliteInboxStore(db: DatabaseSync): InboxStore {
  const inbox = sqlInbox(sqlEngine(db));
  return {
    get: async (account, key, now) => inbox.get(account, key, now),
    put: async (account, key, write, expected, now) => inbox.put(account, key, write, expected, now),
    list: async (account, receptor, options, now) => inbox.list(account, receptor, options, now),
    delete: async (account, key) => inbox.delete(account, key),
  };
}
