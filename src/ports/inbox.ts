// Interfaces only: the documents an account's taxpayers received (the inbox), one per receiver and
// document (issuer, type, folio). Adapters: src/adapters/sql-inbox.ts (SQLite on Node and in the account's
// Durable Object), src/adapters/lambda/dynamodb-inbox.ts, src/adapters/memory/inbox.ts. What a document
// says and where each fact came from is the service's (src/services/inbox.ts); the store keeps records
// whole, numbers them per inbox, and writes one only over the version it was read at.

/** Where a received document stands in its claim period (Ley 19.983 art. 3). */
export type InboxState = "pendiente" | "aceptado" | "reclamado" | "aceptado_tacitamente";
export const INBOX_STATES = ["pendiente", "aceptado", "reclamado", "aceptado_tacitamente"] as const satisfies readonly InboxState[];

/** One document's key in the account: its receiver's inbox, its issuer, type and folio. */
export interface InboxKey {
  receptor: string;
  emisor: string;
  dte: number;
  folio: number;
}

export interface ReceivedDocument extends InboxKey {
  account: string;
  /** 1, 2, 3 … per account and receiver, in the order documents were first filed: the list's order and cursor. */
  seq: number;
  /** What the service knows of the document (amounts, dates, names, its verdict, its SII events, where each came from). */
  facts: Record<string, unknown>;
  /** The DTE's XML as received (the `<DTE>` element, byte for byte decoded as ISO-8859-1), or null when none is held. */
  xml: string | null;
  /** ms since the epoch, from the gateway's clock. */
  created_at: number;
  updated_at: number;
  /** When the store erases it (the account's retention from its last change), ms. */
  expires: number;
  /** Raised by every write: a write names the version it read, and loses to any write since. */
  version: number;
}

/** What a write sets; `seq`, `created_at` and `version` are the store's. */
export type InboxWrite = Pick<ReceivedDocument, "facts" | "xml" | "expires">;

export type InboxPut =
  | { state: "written"; document: ReceivedDocument }
  /** Another write came first (or the document was deleted): read it again and redo the change. */
  | { state: "conflict" };

export interface InboxListOptions {
  /** Only documents filed before this one (a page's cursor: the last `seq` of the previous page). */
  before?: number;
  /** At most this many (the service filters what it reads by state, dates and issuer). */
  limit: number;
}

/**
 * The invariants every adapter keeps, whatever runs at once, retries or dies:
 * - one record per account and key: two first filings of a key at once make one record, and the other sees a conflict;
 * - a write lands only over the version it read (`expected`; null: only where no record is), atomically with its
 *   `seq` for a first filing; a record's `seq` never changes, and seqs grow by one per first filing per inbox;
 * - no account reads, lists, writes or deletes another's records;
 * - a record past its `expires` is never answered, and the store erases it by itself (SQLite in bounded batches
 *   of its writes, DynamoDB by the table's TTL).
 */
export interface InboxStore {
  get(account: string, key: InboxKey, now: number): Promise<ReceivedDocument | null>;
  /** Writes `write` at `key` when the record's version is `expected` (null: when there is none). */
  put(account: string, key: InboxKey, write: InboxWrite, expected: number | null, now: number): Promise<InboxPut>;
  /** The receiver's documents, newest first (highest `seq`), without their XML (`xml` null). */
  list(account: string, receptor: string, options: InboxListOptions, now: number): Promise<ReceivedDocument[]>;
  /** Erases the record; answers whether there was one. */
  delete(account: string, key: InboxKey): Promise<boolean>;
}

/** The longest XML a record holds: under DynamoDB's item limit (400 KB) with its facts. */
export const INBOX_XML_MAX_CHARS = 300_000;
/** A receiver's inbox keeps documents this long after their last change unless the account says otherwise (400 days). */
export const INBOX_KEPT_MS = 400 * 24 * 60 * 60 * 1000;
