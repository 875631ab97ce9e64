// The storage conformance suite on the DynamoDB adapter, against dynalite: an in-memory
// DynamoDB-compatible server on loopback.
import { beforeAll, describe, it } from "vitest";
import { createDynamoStores, createDynamoTable } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { cacheConformanceCases, conformanceCases } from "../conformance/cases.ts";
import { folioLedgerConformanceCases } from "../conformance/folio-cases.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const local = localDynamoDb("conformance");

beforeAll(async () => {
  await createDynamoTable(local.config); // the table exists now: a second call must just succeed
});

describe("dynamodb stores", () => {
  const stores = () => createDynamoStores(local.config);
  const cases = conformanceCases({
    tokens: () => stores().tokens,
    quota: () => stores().quota,
    settings: () => stores().settings,
    idempotency: () => stores().idempotency,
  });
  // The large answer's case writes and reads megabytes of part items: seconds on dynalite.
  for (const c of cases) it(c.name, c.run);
  for (const c of cacheConformanceCases(() => stores().cache)) it(c.name, c.run);
  // 50 concurrent conditional writers race on one item: lost races retry, which takes a while on dynalite.
  for (const c of folioLedgerConformanceCases(() => stores().folios)) it(c.name, c.run, 60_000);
});
