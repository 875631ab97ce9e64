// The storage conformance suite on the DynamoDB adapter, against dynalite: an in-memory
// DynamoDB-compatible server on loopback.
import type { AddressInfo } from "node:net";
import dynalite from "dynalite";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createDynamoStores, createDynamoTable, type DynamoConfig } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { cacheConformanceCases, conformanceCases } from "../conformance/cases.ts";

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
let config: DynamoConfig;

beforeAll(async () => {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo; // listening on TCP, so never a pipe name
  config = {
    table: "conformance",
    region: "us-east-1",
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId: "local",
    secretAccessKey: "local",
  };
  await createDynamoTable(config);
  await createDynamoTable(config); // the table exists now: a second call must just succeed
});

afterAll(() => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))));

describe("dynamodb stores", () => {
  const stores = () => createDynamoStores(config);
  const cases = conformanceCases({
    tokens: () => stores().tokens,
    quota: () => stores().quota,
    settings: () => stores().settings,
    idempotency: () => stores().idempotency,
  });
  for (const c of cases) it(c.name, c.run);
  for (const c of cacheConformanceCases(() => stores().cache)) it(c.name, c.run);
});
