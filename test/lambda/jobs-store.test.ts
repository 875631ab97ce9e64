// The job store's contract (test/support/job-store-contract.ts), the webhook deliveries' and the RCV downloads' properties on the DynamoDB adapter, on dynalite: a table
// of its own for each store made (the contract's lease and nextDue see every account of a table).
import { describe } from "vitest";
import { createDynamoStores, createDynamoTable, type DynamoConfig } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { count, dynamoClient, isRecord } from "../../src/adapters/lambda/dynamodb-wire.ts";
import { jobStoreContract } from "../support/job-store-contract.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";
import { rcvDownloadProperty } from "../support/rcv-download-property.ts";
import { webhookDeliveryProperty } from "../support/webhook-delivery-property.ts";

const local = localDynamoDb("jobs-store");
let tables = 0;

let latest: DynamoConfig | undefined;

async function freshStore() {
  const config = { ...local.config, table: `jobs-store-${++tables}` };
  await createDynamoTable(config);
  latest = config;
  return createDynamoStores(config).jobs;
}

/** The TTL attribute of every result piece's item in the latest table, read raw (a piece is the item with `sealed`). */
async function piecesExpireAt(): Promise<number[]> {
  const config = latest!;
  const page = await dynamoClient(config)("Scan", {
    TableName: config.table,
    ConsistentRead: true,
    FilterExpression: "attribute_exists(sealed)",
  });
  return (Array.isArray(page.Items) ? page.Items.filter(isRecord) : []).map((item) => count(item, "expires_at"));
}

describe("jobs on DynamoDB", () => jobStoreContract(freshStore, { pieces: { by: "ttl", expiresAt: piecesExpireAt } }));
describe("webhook deliveries on DynamoDB", () => webhookDeliveryProperty(freshStore, 10));
describe("RCV downloads on DynamoDB", () => rcvDownloadProperty(freshStore, 6));
