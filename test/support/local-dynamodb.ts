// A DynamoDB-compatible server (dynalite) on loopback for the Lambda tests: started before the
// file's tests with its table created, stopped after them.
import type { AddressInfo } from "node:net";
import dynalite from "dynalite";
import { afterAll, beforeAll } from "vitest";
import { createDynamoTable, type DynamoConfig } from "../../src/adapters/lambda/dynamodb-stores.ts";

/** Registers the server's start and stop; the config is ready inside the tests (and later beforeAll hooks). */
export function localDynamoDb(table: string): { config: DynamoConfig } {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const local = { config: undefined as unknown as DynamoConfig };
  beforeAll(async () => {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = server.address() as AddressInfo; // listening on TCP, so never a pipe name
    local.config = { table, region: "us-east-1", endpoint: `http://127.0.0.1:${port}`, accessKeyId: "local", secretAccessKey: "local" };
    await createDynamoTable(local.config);
  });
  afterAll(() => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))));
  return local;
}
