// Node state in one SQLite file (node:sqlite). Every method is synchronous inside an IMMEDIATE
// transaction, so it is atomic within the process and against other processes on the same file.
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type {
  CacheStore,
  FolioLedgerStore,
  IdempotencyBegin,
  IdempotencyStore,
  QuotaStore,
  SettingsStore,
  StoredResponse,
  TokenRecord,
  TokenStore,
} from "../../ports/stores.ts";
import { ledgerStore, parseLedger } from "../folio-ledger.ts";
import { PURGE_BATCH, purgeSchedule } from "../idempotency-expiry.ts";
import { fits, quotaState, type WindowKeys, windowKeys } from "../quota-windows.ts";

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

function transaction<T>(db: DatabaseSync, work: () => T): T {
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

// Tokens and settings are read on every request and written rarely (through this same process,
// the admin API or a settings PUT), so reads are memoized and every write clears the memo. Another
// process writing the same file would be seen only after a restart: run one process per file.
export function sqliteTokenStore(db: DatabaseSync): TokenStore {
  const parse = (row: unknown) => (row ? (JSON.parse((row as { record: string }).record) as TokenRecord) : null);
  const selectByHash = db.prepare("SELECT record FROM tokens WHERE token_hash = ?");
  // Memoized records are shared by every request: frozen, so no caller can change another's.
  const frozen = (record: TokenRecord | null) =>
    record && (Object.freeze({ ...record, scopes: Object.freeze(record.scopes), plan: Object.freeze(record.plan) }) as TokenRecord);
  const byHash = new Map<string, TokenRecord | null>();
  return {
    async put(record) {
      byHash.clear();
      db.prepare(
        "INSERT INTO tokens (id, token_hash, record) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET token_hash = excluded.token_hash, record = excluded.record",
      ).run(record.id, record.token_hash, JSON.stringify(record));
    },
    async getById(id) {
      return parse(db.prepare("SELECT record FROM tokens WHERE id = ?").get(id));
    },
    async getByHash(hash) {
      if (!byHash.has(hash)) {
        if (byHash.size > 10_000) byHash.clear();
        byHash.set(hash, frozen(parse(selectByHash.get(hash))));
      }
      return byHash.get(hash) ?? null;
    },
    async list() {
      return db
        .prepare("SELECT record FROM tokens")
        .all()
        .map((row) => parse(row) as TokenRecord);
    },
    async delete(id) {
      byHash.clear();
      return Number(db.prepare("DELETE FROM tokens WHERE id = ?").run(id).changes) > 0;
    },
  };
}

export function sqliteQuotaStore(db: DatabaseSync): QuotaStore {
  // Both windows in one statement each way: every charge reads and writes the pair, and each
  // statement run costs about as much as the SQL in it (node:sqlite call overhead).
  const read = db.prepare(
    "SELECT (SELECT used FROM quota WHERE token_id = ?1 AND window = ?2) AS day, (SELECT used FROM quota WHERE token_id = ?1 AND window = ?3) AS month",
  );
  const add = db.prepare(
    "INSERT INTO quota (token_id, window, used) VALUES (?1, ?2, ?4), (?1, ?3, ?4) ON CONFLICT(token_id, window) DO UPDATE SET used = MAX(0, used + excluded.used)",
  );
  // What this process last read or wrote per token and window pair: a peek (the quota headers of
  // every uncharged answer) is then a lookup. Like the token memo above, it assumes one process per
  // file; charges always read and write the file inside their transaction.
  const known = new Map<string, { day: number; month: number }>();
  const remember = (tokenId: string, keys: WindowKeys, counts: { day: number; month: number }) => {
    if (known.size > 10_000) known.clear();
    known.set(`${tokenId}\u0000${keys.day}\u0000${keys.month}`, counts);
    return counts;
  };
  const used = (tokenId: string, keys: WindowKeys) => {
    const row = read.get(tokenId, keys.day, keys.month) as { day: number | null; month: number | null };
    return remember(tokenId, keys, { day: Number(row.day ?? 0), month: Number(row.month ?? 0) });
  };
  return {
    async consume(tokenId, units, plan, now) {
      const keys = windowKeys(now);
      return transaction(db, () => {
        const { day, month } = used(tokenId, keys);
        if (!fits(plan, day, month, units)) return { allowed: false, ...quotaState(keys, plan, day, month) };
        add.run(tokenId, keys.day, keys.month, units);
        remember(tokenId, keys, { day: day + units, month: month + units });
        return { allowed: true, ...quotaState(keys, plan, day + units, month + units) };
      });
    },
    async refund(tokenId, units, consumedAt) {
      const keys = windowKeys(consumedAt);
      add.run(tokenId, keys.day, keys.month, -units);
      // The file clamps at zero per row; reading it back keeps the memo exact.
      used(tokenId, keys);
    },
    async peek(tokenId, plan, now) {
      const keys = windowKeys(now);
      const { day, month } = known.get(`${tokenId}\u0000${keys.day}\u0000${keys.month}`) ?? used(tokenId, keys);
      return quotaState(keys, plan, day, month);
    },
  };
}

export function sqliteSettingsStore(db: DatabaseSync): SettingsStore {
  const memo = new Map<string, string | null>();
  const id = (account: string, key: string) => `${account}\u0000${key}`;
  return {
    async get<T>(account: string, key: string) {
      if (!memo.has(id(account, key))) {
        if (memo.size > 10_000) memo.clear();
        const row = db.prepare("SELECT value FROM settings WHERE account = ? AND key = ?").get(account, key) as
          | { value: string }
          | undefined;
        memo.set(id(account, key), row?.value ?? null);
      }
      const value = memo.get(id(account, key));
      return value ? (JSON.parse(value) as T) : null;
    },
    async put(account, key, value) {
      memo.delete(id(account, key));
      db.prepare(
        "INSERT INTO settings (account, key, value) VALUES (?, ?, ?) ON CONFLICT(account, key) DO UPDATE SET value = excluded.value",
      ).run(account, key, JSON.stringify(value));
    },
    async delete(account, key) {
      memo.delete(id(account, key));
      db.prepare("DELETE FROM settings WHERE account = ? AND key = ?").run(account, key);
    },
  };
}

interface IdemRow {
  fingerprint: string;
  state: string;
  until: number;
  response: string | null;
}

export function sqliteIdempotencyStore(db: DatabaseSync): IdempotencyStore {
  const read = db.prepare("SELECT fingerprint, state, until, response FROM idempotency WHERE account = ? AND key = ?");
  const start = db.prepare(
    "INSERT OR REPLACE INTO idempotency (account, key, fingerprint, state, until, response, attempt) VALUES (?, ?, ?, 'in_progress', ?, NULL, ?)",
  );
  // Conditional on the attempt holding the record: one whose lease a retry took over completes nothing.
  const finish = db.prepare(
    "UPDATE idempotency SET state = 'completed', until = ?, response = ? WHERE account = ? AND key = ? AND fingerprint = ? AND attempt = ? AND state = 'in_progress'",
  );
  // Both read the idempotency_answers index: the cost follows the account's own answers only.
  const answers = db.prepare(
    "SELECT COUNT(*) AS n, MIN(until) AS first FROM idempotency WHERE account = ? AND state = 'completed' AND until > ?",
  );
  const drop = db.prepare(
    "DELETE FROM idempotency WHERE account = ? AND key = ? AND fingerprint = ? AND attempt = ? AND state = 'in_progress'",
  );
  // The idempotency_expiry index finds the batch; the cost is bounded by PURGE_BATCH, not the table.
  const purge = db.prepare(`DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency WHERE until <= ? LIMIT ${PURGE_BATCH})`);
  const purgeDue = purgeSchedule();
  return {
    async begin(account, key, fingerprint, attempt, now, leaseMs, maxStored): Promise<IdempotencyBegin> {
      const begun = transaction(db, (): IdempotencyBegin => {
        const row = read.get(account, key) as IdemRow | undefined;
        if (!row || row.until <= now.getTime()) {
          const held = answers.get(account, now.getTime()) as { n: number; first: number | null };
          if (held.n >= maxStored) return { state: "full", stored: held.n, freesAt: held.first ?? now.getTime() };
          start.run(account, key, fingerprint, now.getTime() + leaseMs, attempt);
          return { state: "started" };
        }
        if (row.fingerprint !== fingerprint) return { state: "conflict" };
        if (row.state === "completed" && row.response) {
          return { state: "completed", response: JSON.parse(row.response) as StoredResponse };
        }
        return { state: "in_progress" };
      });
      if (begun.state === "started" && purgeDue()) purge.run(now.getTime());
      return begun;
    },
    async complete(account, key, fingerprint, attempt, response, now, ttlMs) {
      return Number(finish.run(now.getTime() + ttlMs, JSON.stringify(response), account, key, fingerprint, attempt).changes) === 1;
    },
    async abandon(account, key, fingerprint, attempt) {
      drop.run(account, key, fingerprint, attempt);
    },
    async stored(account, now) {
      return (answers.get(account, now.getTime()) as { n: number }).n;
    },
  };
}

export function sqliteCacheStore(db: DatabaseSync): CacheStore {
  const select = db.prepare("SELECT value FROM cache WHERE key = ? AND (until IS NULL OR until > ?)");
  const upsert = db.prepare("INSERT OR REPLACE INTO cache (key, value, until) VALUES (?, ?, ?)");
  return {
    async get(key, now) {
      const row = select.get(key, now.getTime()) as { value: string } | undefined;
      return row?.value ?? null;
    },
    async put(key, value, now, ttlMs) {
      upsert.run(key, value, ttlMs === undefined ? null : now.getTime() + ttlMs);
    },
  };
}

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

export function sqliteStores(path: string) {
  const db = openDatabase(path);
  return {
    db,
    tokens: sqliteTokenStore(db),
    quota: sqliteQuotaStore(db),
    settings: sqliteSettingsStore(db),
    idempotency: sqliteIdempotencyStore(db),
    cache: sqliteCacheStore(db),
    folios: sqliteFolioLedgerStore(db),
  };
}
