// The storage conformance suite on the Cloudflare adapters (KV and Durable Objects in workerd).
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { durableFolioLedgerStore } from "../../src/adapters/cloudflare/durable-folio-ledger.ts";
import { durableIdempotencyStore } from "../../src/adapters/cloudflare/durable-idempotency.ts";
import { durableQuotaStore } from "../../src/adapters/cloudflare/durable-quota.ts";
import { durableSessionStore } from "../../src/adapters/cloudflare/durable-sessions.ts";
import { kvCacheStore } from "../../src/adapters/cloudflare/kv-cache.ts";
import { kvSettingsStore } from "../../src/adapters/cloudflare/kv-settings.ts";
import { kvTokenStore } from "../../src/adapters/cloudflare/kv-tokens.ts";
import type { WorkerEnv } from "../../src/entry/worker.ts";
import { cacheConformanceCases, conformanceCases, sessionConformanceCases } from "../conformance/cases.ts";
import { folioLedgerConformanceCases } from "../conformance/folio-cases.ts";

const bindings = env as unknown as WorkerEnv;
/** Concurrency cases make many Durable Object round trips: on a busy 2-core machine they take seconds. */
const SLOW_MS = 30_000;

describe("cloudflare stores", () => {
  for (const c of conformanceCases({
    tokens: () => kvTokenStore(bindings.TOKENS),
    quota: () => durableQuotaStore(bindings.QUOTA),
    settings: () => kvSettingsStore(bindings.SETTINGS),
    idempotency: () => durableIdempotencyStore(bindings.IDEMPOTENCY),
  })) {
    it(c.name, c.run, SLOW_MS);
  }
});

describe("durable object session store", () => {
  for (const c of sessionConformanceCases(() => durableSessionStore(bindings.SESSIONS))) it(c.name, c.run, SLOW_MS);
});

describe("kv cache store", () => {
  for (const c of cacheConformanceCases(() => kvCacheStore(bindings.CACHE))) it(c.name, c.run);
});

describe("durable object folio ledgers", () => {
  for (const c of folioLedgerConformanceCases(() => durableFolioLedgerStore(bindings.FOLIOS))) it(c.name, c.run, SLOW_MS);
});
