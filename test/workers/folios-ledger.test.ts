// documentos/generar with the folio ledger in workerd: the Durable Object ledger (FOLIOS), KV
// tokens and Durable Object quota and idempotency, several apps over them as several isolates.
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { durableFolioLedgerStore } from "../../src/adapters/cloudflare/durable-folio-ledger.ts";
import { durableIdempotencyStore } from "../../src/adapters/cloudflare/durable-idempotency.ts";
import { durableQuotaStore } from "../../src/adapters/cloudflare/durable-quota.ts";
import { kvSettingsStore } from "../../src/adapters/cloudflare/kv-settings.ts";
import { kvTokenStore } from "../../src/adapters/cloudflare/kv-tokens.ts";
import type { WorkerEnv } from "../../src/entry/worker.ts";
import { ledgerGenerarCases } from "../support/ledger-generar-cases.ts";

const bindings = env as unknown as WorkerEnv;

describe("generar with the Durable Object folio ledger", () => {
  for (const c of ledgerGenerarCases(() => ({
    tokens: kvTokenStore(bindings.TOKENS),
    quota: durableQuotaStore(bindings.QUOTA),
    settings: kvSettingsStore(bindings.SETTINGS),
    idempotency: durableIdempotencyStore(bindings.IDEMPOTENCY),
    folios: durableFolioLedgerStore(bindings.FOLIOS),
  }))) {
    // 50 signed documents and their Durable Object round trips on a busy 2-core machine.
    it(c.name, c.run, 90_000);
  }
});
