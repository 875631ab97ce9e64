// documentos/generar with the folio ledger on the DynamoDB stores (dynalite on loopback): several
// apps, each with its own client, over one table, as several Lambda instances.
import { describe, it } from "vitest";
import { createDynamoStores } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { ledgerGenerarCases } from "../support/ledger-generar-cases.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const local = localDynamoDb("folio-ledger-generar");

describe("generar with the DynamoDB folio ledger", () => {
  for (const c of ledgerGenerarCases(() => createDynamoStores(local.config))) it(c.name, c.run, 90_000);
});
