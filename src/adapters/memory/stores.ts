// Every in-memory store at once: the tests' deps, and single-process experiments.
import { memoryCacheStore } from "./cache.ts";
import { memoryFolioLedgerStore } from "./folio-ledger.ts";
import { memoryIdempotencyStore } from "./idempotency.ts";
import { memoryInboxStore } from "./inbox.ts";
import { memoryJobStore } from "./jobs.ts";
import { memoryQuotaStore } from "./quota.ts";
import { memorySessionStore } from "./sessions.ts";
import { memorySettingsStore } from "./settings.ts";
import { memoryTokenStore } from "./tokens.ts";

export function memoryStores() {
  return {
    tokens: memoryTokenStore(),
    quota: memoryQuotaStore(),
    settings: memorySettingsStore(),
    idempotency: memoryIdempotencyStore(),
    sessions: memorySessionStore(),
    cache: memoryCacheStore(),
    folios: memoryFolioLedgerStore(),
    jobs: memoryJobStore(),
    inbox: memoryInboxStore(),
  };
}
