// The storage conformance suite on the memory and SQLite adapters.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { memorySessionStore, memoryStores } from "../../src/adapters/memory/stores.ts";
import { sqliteStores } from "../../src/adapters/node/sqlite-stores.ts";
import { conformanceCases, sessionConformanceCases } from "../conformance/cases.ts";

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
