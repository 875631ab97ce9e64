// Node state in one SQLite file (node:sqlite): the file's tables, opening it, the IMMEDIATE transaction
// every store's method runs in, so it is atomic within the process and against other processes on the same file,
// and that file as the engine of the SQL stores shared with the Durable Objects (sql-jobs.ts, sql-inbox.ts).
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { INBOX_SCHEMA } from "../sql-inbox.ts";
import { JOBS_SCHEMA, type SqlEngine } from "../sql-jobs.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tokens (id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS quota (token_id TEXT NOT NULL, window TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (token_id, window));
CREATE TABLE IF NOT EXISTS settings (account TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (account, key));
CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, until INTEGER);
CREATE TABLE IF NOT EXISTS idempotency (
  account TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, state TEXT NOT NULL,
  until INTEGER NOT NULL, response TEXT, attempt TEXT, PRIMARY KEY (account, key));
CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency (until);
CREATE INDEX IF NOT EXISTS idempotency_answers ON idempotency (account, state, until);
CREATE TABLE IF NOT EXISTS folio_ledgers (id TEXT PRIMARY KEY, state TEXT NOT NULL);
`;

export function openDatabase(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  // The busy timeout first: two processes opening a new file at once would otherwise race for the WAL switch
  // and one fail at start with "database is locked". WAL with synchronous=NORMAL: no fsync per commit; a
  // power cut may lose the last commits, never corrupt.
  db.exec("PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
  db.exec(SCHEMA);
  for (const statement of [...JOBS_SCHEMA, ...INBOX_SCHEMA]) db.exec(statement);
  migrate(db);
  return db;
}

/**
 * Brings a file written by an older version up to SCHEMA: the idempotency records gained the attempt
 * holding them. In one IMMEDIATE transaction, so two processes opening the file add the column once.
 */
function migrate(db: DatabaseSync): void {
  transaction(db, () => {
    const columns = db.prepare("PRAGMA table_info(idempotency)").all() as { name: string }[];
    if (!columns.some((column) => column.name === "attempt")) db.exec("ALTER TABLE idempotency ADD COLUMN attempt TEXT");
  });
}

/** BEGIN/COMMIT/ROLLBACK prepared once per database: they run on every quota charge. */
const transactionStatements = new WeakMap<DatabaseSync, { begin: StatementSync; commit: StatementSync; rollback: StatementSync }>();

export function transaction<T>(db: DatabaseSync, work: () => T): T {
  let tx = transactionStatements.get(db);
  if (!tx) {
    tx = { begin: db.prepare("BEGIN IMMEDIATE"), commit: db.prepare("COMMIT"), rollback: db.prepare("ROLLBACK") };
    transactionStatements.set(db, tx);
  }
  tx.begin.run();
  try {
    const result = work();
    tx.commit.run();
    return result;
  } catch (err) {
    tx.rollback.run();
    throw err;
  }
}

/** node:sqlite as the SQL store's engine: statements prepared once each, work in IMMEDIATE transactions. */
export function sqlEngine(db: DatabaseSync): SqlEngine {
  const prepared = new Map<string, StatementSync>();
  const statement = (sql: string) => {
    let s = prepared.get(sql);
    if (!s) {
      s = db.prepare(sql);
      prepared.set(sql, s);
    }
    return s;
  };
  let depth = 0;
  return {
    all: <T>(sql: string, ...params: (string | number | null)[]) => statement(sql).all(...params) as T[],
    run: (sql, ...params) => void statement(sql).run(...params),
    atomic: (work) => {
      // Reads outside a transaction see the last commit (WAL); nested work joins the open transaction.
      if (depth > 0) return work();
      depth++;
      try {
        return transaction(db, work);
      } finally {
        depth--;
      }
    },
  };
}
