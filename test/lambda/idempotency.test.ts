// The idempotency attacks through the app on the DynamoDB stores (dynalite on loopback).
import { describe, it } from "vitest";
import { createDynamoStores } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { idempotencyAttackCases } from "../support/idempotency-attacks.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const local = localDynamoDb("idempotency-attacks");

describe("idempotency attacks on DynamoDB", () => {
  for (const c of idempotencyAttackCases(() => createDynamoStores(local.config))) it(c.name, c.run, 60_000);
});
