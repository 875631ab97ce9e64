// The idempotency attacks through the app on the DynamoDB stores (dynalite on loopback), and the
// part items of answers larger than an item: written before the record completes, deleted when
// the record is replaced or its completion is refused.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { dynamoIdempotencyStore } from "../../src/adapters/lambda/dynamodb-idempotency.ts";
import { createDynamoStores } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { type Call, DynamoError, dynamoClient, isRecord, itemIn, type Json, type Key, S } from "../../src/adapters/lambda/dynamodb-wire.ts";
import { idempotencyAttackCases } from "../support/idempotency-attacks.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const local = localDynamoDb("idempotency-attacks");

describe("idempotency attacks on DynamoDB", () => {
  for (const c of idempotencyAttackCases(() => createDynamoStores(local.config))) it(c.name, c.run, 60_000);
});

describe("DynamoDB idempotency answers in parts", () => {
  const noon = new Date("2026-03-15T12:00:00Z");
  const later = new Date(noon.getTime() + 2_000);
  /** ~1.5 MB of sealed-looking text: a record and three parts. */
  const answer = (fill: string) => ({ status: 201, headers: {}, body: `v1.${fill.repeat(1_500_000)}` });

  /** The sort keys of every item under the account's records' pk (a page holds 1 MB: all pages). */
  async function items(account: string): Promise<string[]> {
    const call = dynamoClient(local.config);
    const keys: string[] = [];
    let start: unknown;
    do {
      const page: Json = await call("Query", {
        TableName: local.config.table,
        ConsistentRead: true,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": S(`idem#${account}`) },
        ProjectionExpression: "sk",
        ...(start ? { ExclusiveStartKey: start } : {}),
      });
      for (const item of (page.Items ?? []) as { sk: { S: string } }[]) keys.push(item.sk.S);
      start = page.LastEvaluatedKey;
    } while (start);
    return keys.sort();
  }

  it("writes an answer larger than an item as a record and its parts, and a new start over it deletes them", async () => {
    const store = createDynamoStores(local.config).idempotency;
    const account = `parts-${Date.now()}`;
    await store.begin(account, "k", "fp", "a", noon, 60_000, 10);
    await store.complete(account, "k", "fp", "a", answer("a"), noon, 1_000);
    const written = await items(account);
    expect(written[0]).toBe("k");
    expect(written.length).toBe(4);
    expect(written.slice(1).every((sk) => sk.startsWith("k "))).toBe(true);
    await store.begin(account, "k", "other", "a", later, 60_000, 10);
    expect(await items(account)).toEqual(["k"]);
  }, 60_000);

  it("a completion by an attempt whose lease was taken over is refused and writes no parts; the holder's completes once", async () => {
    const store = createDynamoStores(local.config).idempotency;
    const account = `twice-${Date.now()}`;
    await store.begin(account, "k", "fp", "slow", noon, 1_000, 10);
    await store.begin(account, "k", "fp", "retry", later, 60_000, 10);
    expect(await store.complete(account, "k", "fp", "slow", answer("a"), later, 60_000)).toBe(false);
    expect(await items(account)).toEqual(["k"]);
    expect(await store.complete(account, "k", "fp", "retry", answer("b"), later, 60_000)).toBe(true);
    expect((await items(account)).length).toBe(4);
    const begun = await store.begin(account, "k", "fp", "third", later, 60_000, 10);
    expect(begun.state === "completed" && begun.response.body === answer("b").body).toBe(true);
    expect(await store.complete(account, "k", "fp", "retry", answer("c"), later, 60_000)).toBe(false); // completed once
    expect((await items(account)).length).toBe(4);
  }, 60_000);

  it("a lease taken over while the attempt writes its parts: its completion is refused and its parts are deleted", async () => {
    const real = dynamoClient(local.config);
    const account = `raced-${Date.now()}`;
    const other = createDynamoStores(local.config).idempotency;
    let race = true;
    // The retry takes the key over right after the slow attempt saw it still held.
    const getItem = async (k: Key) => {
      const item = itemIn(await real("GetItem", { TableName: local.config.table, Key: k, ConsistentRead: true }), "Item");
      if (race && (k.sk as { S: string }).S === "k") {
        race = false;
        await other.begin(account, "k", "fp", "retry", later, 60_000, 10);
      }
      return item;
    };
    const store = dynamoIdempotencyStore(real, local.config.table, getItem);
    await store.begin(account, "k", "fp", "slow", noon, 1_000, 10);
    expect(await store.complete(account, "k", "fp", "slow", answer("a"), later, 60_000)).toBe(false);
    expect(race).toBe(false);
    expect(await items(account)).toEqual(["k"]);
    expect(await other.begin(account, "k", "fp", "third", later, 60_000, 10)).toEqual({ state: "in_progress" });
  }, 60_000);

  it("completes and replays 64 MiB of sealed text", async () => {
    const store = createDynamoStores(local.config).idempotency;
    const account = `huge-${Date.now()}`;
    const big = { status: 201, headers: {}, body: `v1.${randomBytes(48 * 1024 * 1024).toString("base64")}` };
    await store.begin(account, "k", "fp", "a", noon, 60_000, 10);
    await store.complete(account, "k", "fp", "a", big, noon, 60_000);
    const begun = await store.begin(account, "k", "fp", "a", noon, 60_000, 10);
    expect(begun.state === "completed" && begun.response.body === big.body).toBe(true);
    expect(await store.stored(account, noon)).toBe(1);
  }, 120_000);

  it("tries a throttled part again, so a large answer is kept when DynamoDB asks to slow down", async () => {
    const real = dynamoClient(local.config);
    let throttled = 0;
    // The first four part writes are refused as DynamoDB refuses a partition's excess writes.
    const call: Call = async (operation, body) => {
      const isPart = operation === "PutItem" && isRecord(body.Item) && (body.Item.sk as { S: string }).S.startsWith("k ");
      if (isPart && throttled < 4) {
        throttled++;
        throw new DynamoError(
          "ProvisionedThroughputExceededException",
          "The level of configured provisioned throughput for the table was exceeded",
          400,
        );
      }
      return real(operation, body);
    };
    const getItem = async (k: Key) =>
      itemIn(await real("GetItem", { TableName: local.config.table, Key: k, ConsistentRead: true }), "Item");
    const store = dynamoIdempotencyStore(call, local.config.table, getItem);
    const account = `throttled-${Date.now()}`;
    await store.begin(account, "k", "fp", "a", noon, 60_000, 10);
    await store.complete(account, "k", "fp", "a", answer("t"), noon, 60_000);
    expect(throttled).toBe(4);
    const begun = await store.begin(account, "k", "fp", "a", noon, 60_000, 10);
    expect(begun.state === "completed" && begun.response.body === answer("t").body).toBe(true);
  }, 60_000);
});
