// The storage conformance suite on the Cloudflare adapters (KV and Durable Objects in workerd).
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import {
  durableFolioLedgerStore,
  durableIdempotencyStore,
  durableQuotaStore,
  durableSessionStore,
  kvCacheStore,
  kvSettingsStore,
  kvTokenStore,
} from "../../src/adapters/cloudflare/stores.ts";
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
