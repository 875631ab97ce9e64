// The storage conformance suite on the memory and SQLite adapters.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { memoryCacheStore } from "../../src/adapters/memory/cache.ts";
import { memorySessionStore } from "../../src/adapters/memory/sessions.ts";
import { memoryStores } from "../../src/adapters/memory/stores.ts";
import { sqliteStores } from "../../src/adapters/node/sqlite-stores.ts";
import { cacheConformanceCases, conformanceCases, sessionConformanceCases } from "../conformance/cases.ts";
import { folioLedgerConformanceCases } from "../conformance/folio-cases.ts";

const memory = memoryStores();
const sqlite = sqliteStores(join(mkdtempSync(join(tmpdir(), "sii-gw-")), "conformance.sqlite"));

for (const [name, stores] of [
  ["memory stores", memory],
  ["sqlite stores", sqlite],
] as const) {
  describe(name, () => {
    for (const c of conformanceCases({
      tokens: () => stores.tokens,
      quota: () => stores.quota,
      settings: () => stores.settings,
      idempotency: () => stores.idempotency,
    })) {
      it(c.name, c.run);
    }
  });
}

describe("memory session store", () => {
  for (const c of sessionConformanceCases(() => memorySessionStore())) it(c.name, c.run);
});

describe("memory and sqlite cache stores", () => {
  for (const c of cacheConformanceCases(() => memoryCacheStore())) it(`memory ${c.name}`, c.run);
  for (const c of cacheConformanceCases(() => sqlite.cache)) it(`sqlite ${c.name}`, c.run);
});

describe("memory and sqlite folio ledgers", () => {
  for (const c of folioLedgerConformanceCases(() => memory.folios)) it(`memory ${c.name}`, c.run);
  for (const c of folioLedgerConformanceCases(() => sqlite.folios)) it(`sqlite ${c.name}`, c.run);
});
