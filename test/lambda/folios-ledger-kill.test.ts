// The folio ledger's property on DynamoDB (test/support/ledger-kill.ts has it and its invariant): two
// gateways with the Lambda deps as child processes on the local DynamoDB of this file, random calls over
// both, both killed -9 and started again on the same table.
import { join } from "node:path";
import { describe, it } from "vitest";
import { freePort, KILL_TEST_LEASE_MS, KILL_TEST_TOKEN, killDuringBatch, spawnGateway } from "../support/ledger-kill.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const root = join(import.meta.dirname, "..", "..");
const local = localDynamoDb("folio-ledger-kill");

describe("folio ledger on DynamoDB, kill -9 in the middle of a batch", () => {
  it("no folio in two answers, and the folios used are exactly those answered, under retries, races, refusals and kill -9", {
    timeout: 90_000,
  }, async () => {
    const env = {
      ...process.env,
      ...local.env(),
      SECRET_KEY: "lambda-kill-test-secret-key-0123456789abcdef",
      DEV_API_TOKEN: KILL_TEST_TOKEN,
      IDEMPOTENCY_LEASE_MS: String(KILL_TEST_LEASE_MS),
    };
    await killDuringBatch(
      (port) =>
        spawnGateway(process.execPath, ["--experimental-strip-types", "--no-warnings", "test/support/dynamo-gateway.ts"], {
          cwd: root,
          env: { ...env, PORT: String(port) },
          ready: "listening",
          withinMs: 30_000,
        }),
      [freePort(), freePort()],
    );
  });
});
