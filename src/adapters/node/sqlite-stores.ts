// Every SQLite store of one file at once: what the Node entry runs on.
import { sqliteCacheStore } from "./sqlite-cache.ts";
import { openDatabase } from "./sqlite-database.ts";
import { sqliteFolioLedgerStore } from "./sqlite-folio-ledger.ts";
import { sqliteIdempotencyStore } from "./sqlite-idempotency.ts";
import { sqliteInboxStore } from "./sqlite-inbox.ts";
import { sqliteJobStore } from "./sqlite-jobs.ts";
import { sqliteQuotaStore } from "./sqlite-quota.ts";
import { sqliteSettingsStore } from "./sqlite-settings.ts";
import { sqliteTokenStore } from "./sqlite-tokens.ts";

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
    jobs: sqliteJobStore(db),
    inbox: sqliteInboxStore(db),
  };
}
