// documentos/generar with the folio ledger on the DynamoDB stores (dynalite on loopback): several
// apps, each with its own client, over one table, as several Lambda instances.
import { describe, it } from "vitest";
import { createDynamoStores } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { ledgerGenerarCases } from "../support/ledger-generar-cases.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const local = localDynamoDb("folio-ledger-generar");

/**
 * 20 concurrent calls, not the other runtimes' 50: dynalite runs in the test's own process, and on a
 * machine busy beside the suite each of its reads and writes took hundreds of milliseconds, so 50
 * writes on one ledger, one at a time, outlasted the ledger's 20 s of retries. 20 prove the same.
 */
const CONCURRENT = 20;

describe("generar with the DynamoDB folio ledger", () => {
  for (const c of ledgerGenerarCases(() => createDynamoStores(local.config), CONCURRENT)) it(c.name, c.run, 90_000);
});
