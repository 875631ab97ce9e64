// The Workers runtime's inbox: a Durable Object per account (`idFromName(account)`) holding that account's
// received documents in its own SQLite (src/adapters/sql-inbox.ts). Invariants: the object holds one
// account's records only (the first write names it; another account's call throws), and every RPC method's
// SQL work is synchronous, so no two interleave: each write is atomic with its seq. Expired records go in
// the writes' bounded purge; no alarm is needed. Entry code beside AccountJobs; worker.ts exports it.

import { DurableObject } from "cloudflare:workers";
import type { AccountInboxRpc } from "../adapters/cloudflare/durable-inbox.ts";
import { durableSqlEngine } from "../adapters/cloudflare/durable-jobs.ts";
import { INBOX_SCHEMA, type SqlInbox, sqlInbox } from "../adapters/sql-inbox.ts";
import type { InboxKey, InboxListOptions, InboxWrite } from "../ports/inbox.ts";

const OWNER_SCHEMA = "CREATE TABLE IF NOT EXISTS inbox_owner (id INTEGER PRIMARY KEY CHECK (id = 1), account TEXT NOT NULL)";

export class AccountInbox extends DurableObject implements AccountInboxRpc {
  private readonly inbox: SqlInbox;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    for (const statement of [...INBOX_SCHEMA, OWNER_SCHEMA]) ctx.storage.sql.exec(statement);
    this.inbox = sqlInbox(durableSqlEngine(ctx.storage));
  }

  /** Throws when the object is another account's; `claim`: a first write names the object (ctx.id.name is not always there). */
  private own(account: string, claim = false): void {
    const owner = this.ctx.storage.sql.exec<{ account: string }>("SELECT account FROM inbox_owner WHERE id = 1").toArray()[0];
    if (owner && owner.account !== account) throw new Error(`this inbox object holds another account's documents, not ${account}'s`);
    if (!owner && claim) this.ctx.storage.sql.exec("INSERT INTO inbox_owner (id, account) VALUES (1, ?)", account);
  }

  get(account: string, key: InboxKey, now: number) {
    this.own(account);
    return this.inbox.get(account, key, now);
  }

  put(account: string, key: InboxKey, write: InboxWrite, expected: number | null, now: number) {
    this.own(account, true);
    return this.inbox.put(account, key, write, expected, now);
  }

  list(account: string, receptor: string, options: InboxListOptions, now: number) {
    this.own(account);
    return this.inbox.list(account, receptor, options, now);
  }

  delete(account: string, key: InboxKey) {
    this.own(account);
    return this.inbox.delete(account, key);
  }
}
