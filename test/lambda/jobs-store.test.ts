// The job store's contract (test/support/job-store-contract.ts) and the webhook deliveries' property on the DynamoDB adapter, on dynalite: a table
// of its own for each store made (the contract's lease and nextDue see every account of a table).
import { describe } from "vitest";
import { createDynamoStores, createDynamoTable } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { jobStoreContract } from "../support/job-store-contract.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";
import { webhookDeliveryProperty } from "../support/webhook-delivery-property.ts";

const local = localDynamoDb("jobs-store");
let tables = 0;

async function freshStore() {
  const config = { ...local.config, table: `jobs-store-${++tables}` };
  await createDynamoTable(config);
  return createDynamoStores(config).jobs;
}

describe("jobs on DynamoDB", () => jobStoreContract(freshStore));
describe("webhook deliveries on DynamoDB", () => webhookDeliveryProperty(freshStore, 10));
