// The storage conformance suite on the DynamoDB adapter, against a local DynamoDB-compatible
// server on loopback.
import type { AddressInfo } from "node:net";
import dynalite from "dynalite";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createDynamoStores, createDynamoTable, type DynamoConfig } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { conformanceCases } from "../conformance/cases.ts";

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
let config: DynamoConfig;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  config = {
    table: "conformance",
    region: "us-east-1",
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accessKeyId: "local",
    secretAccessKey: "local",
  };
  await createDynamoTable(config);
  await createDynamoTable(config); // a second time is fine
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("dynamodb stores", () => {
  const stores = () => createDynamoStores(config);
  for (const c of conformanceCases({
    tokens: () => stores().tokens,
    quota: () => stores().quota,
    settings: () => stores().settings,
    idempotency: () => stores().idempotency,
  })) {
    it(c.name, c.run);
  }
});
