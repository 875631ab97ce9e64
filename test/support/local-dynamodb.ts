// A DynamoDB-compatible server (dynalite) on loopback for the Lambda tests: started before the
// file's tests with its table created, stopped after them.
import type { AddressInfo } from "node:net";
import dynalite from "dynalite";
import { afterAll, beforeAll } from "vitest";
import { createDynamoTable, type DynamoConfig } from "../../src/adapters/lambda/dynamodb-stores.ts";

/** What the Lambda entries read from their environment to run on a local table, in sandbox mode. */
export interface LocalLambdaEnv extends Record<string, string> {
  DYNAMODB_TABLE: string;
  DYNAMODB_ENDPOINT: string;
  AWS_REGION: string;
}

/**
 * Registers the server's start and stop; the config is ready inside the tests (and later beforeAll hooks),
 * and `env()` the Lambda entries' environment on it (the sandbox, a test SECRET_KEY).
 */
export function localDynamoDb(table: string): { config: DynamoConfig; env: () => LocalLambdaEnv } {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const local = {
    config: undefined as unknown as DynamoConfig,
    env: (): LocalLambdaEnv => ({
      DYNAMODB_TABLE: local.config.table,
      DYNAMODB_ENDPOINT: local.config.endpoint ?? "",
      AWS_REGION: local.config.region,
      AWS_ACCESS_KEY_ID: "local",
      AWS_SECRET_ACCESS_KEY: "local",
      SII_UPSTREAM: "sandbox",
      SECRET_KEY: "lambda-test-secret-key-0123456789abcdef",
    }),
  };
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
