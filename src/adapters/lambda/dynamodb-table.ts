// Creating the DynamoDB table the Lambda stores use (layout in dynamodb-stores.ts), with its TTL.
import { type Call, type DynamoConfig, DynamoError, dynamoClient, isRecord } from "./dynamodb-wire.ts";

/** Creates the table (or finds it already there) and waits until it is ACTIVE. */
export async function createDynamoTable(config: DynamoConfig, timeoutMs = 120_000): Promise<void> {
  const call = dynamoClient(config);
  try {
    await call("CreateTable", {
      TableName: config.table,
      AttributeDefinitions: [
        { AttributeName: "pk", AttributeType: "S" },
        { AttributeName: "sk", AttributeType: "S" },
      ],
      KeySchema: [
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ],
      BillingMode: "PAY_PER_REQUEST",
    });
  } catch (err) {
    if (!(err instanceof DynamoError && err.type === "ResourceInUseException")) throw err;
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { Table } = await call("DescribeTable", { TableName: config.table });
    if (isRecord(Table) && Table.TableStatus === "ACTIVE") break;
    if (Date.now() > deadline) throw new Error(`DynamoDB table ${config.table} did not become ACTIVE within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await enableExpiry(call, config.table);
}

/**
 * The TTL on `expires_at` (template.yaml declares the same) that removes expired records. Asking
 * to enable it twice is an error on DynamoDB, so the current state is read first; a compatible
 * server without TTL (dynalite) keeps every item, which no read depends on.
 */
async function enableExpiry(call: Call, TableName: string): Promise<void> {
  const { TimeToLiveDescription } = await call("DescribeTimeToLive", { TableName });
  const status = isRecord(TimeToLiveDescription) ? TimeToLiveDescription.TimeToLiveStatus : undefined;
  if (status === "ENABLED" || status === "ENABLING") return;
  try {
    await call("UpdateTimeToLive", { TableName, TimeToLiveSpecification: { AttributeName: "expires_at", Enabled: true } });
  } catch (err) {
    if (!(err instanceof DynamoError && err.type === "UnknownOperationException")) throw err;
  }
}
