// The folio ledger on DynamoDB survives a kill -9 of the gateway in the middle of a batch: the
// gateway with the Lambda deps runs as a child process against the local DynamoDB of this file,
// is killed, and starts again on the same table (test/support/ledger-kill.ts has the case).
import { join } from "node:path";
import { describe, it } from "vitest";
import { freePort, KILL_TEST_TOKEN, killDuringBatch, spawnGateway } from "../support/ledger-kill.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const root = join(import.meta.dirname, "..", "..");
const local = localDynamoDb("folio-ledger-kill");

describe("folio ledger on DynamoDB, kill -9 in the middle of a batch", () => {
  it("loses no folio and doubles none: answered, recorded as allocated (retrievable by key) or free", { timeout: 30_000 }, async () => {
    const env = {
      ...process.env,
      DYNAMODB_TABLE: local.config.table,
      DYNAMODB_ENDPOINT: local.config.endpoint,
      AWS_REGION: local.config.region,
      AWS_ACCESS_KEY_ID: "local",
      AWS_SECRET_ACCESS_KEY: "local",
      SII_UPSTREAM: "sandbox",
      SECRET_KEY: "lambda-kill-test-secret-key-0123456789abcdef",
      DEV_API_TOKEN: KILL_TEST_TOKEN,
    };
    await killDuringBatch(
      (port) =>
        spawnGateway(process.execPath, ["--experimental-strip-types", "--no-warnings", "test/support/dynamo-gateway.ts"], {
          cwd: root,
          env: { ...env, PORT: String(port) },
          ready: "listening",
          withinMs: 10_000,
        }),
      freePort(),
    );
  });
});
