// documentos/generar with the folio ledger on SQLite: every app its own connection to one file, as the
// processes of one Node deployment are, so only SQLite's transactions keep folios apart (the same cases
// run on Durable Objects and DynamoDB in test/workers and test/lambda).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { sqliteStores } from "../../src/adapters/node/sqlite-stores.ts";
import { ledgerGenerarCases } from "../support/ledger-generar-cases.ts";

const file = join(mkdtempSync(join(tmpdir(), "sii-gw-ledger-")), "state.sqlite");

describe("generar with the folio ledger on SQLite, one connection per app", () => {
  for (const c of ledgerGenerarCases(() => sqliteStores(file))) it(c.name, c.run, 90_000);
});
