// Lambda state in one DynamoDB table (pk/sk strings, on-demand), spoken to through DynamoDB's
// JSON API with SigV4 (aws4fetch): no SDK, and no transactions (single-item conditional writes
// are enough, and work on every DynamoDB-compatible server). Every read is strongly consistent; quota and
// idempotency are exact through conditional writes. `expires_at` (unix seconds) marks items a
// DynamoDB TTL on that attribute may remove; correctness never depends on it.
import { AwsClient } from "aws4fetch";
import type {
  IdempotencyBegin,
  IdempotencyStore,
  QuotaStore,
  SettingsStore,
  StoredResponse,
  TokenRecord,
  TokenStore,
} from "../../ports.ts";
import { quotaState, windowKeys } from "../quota-windows.ts";

export interface DynamoConfig {
  table: string;
  region: string;
  endpoint?: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

type Value = { S: string } | { N: string };
type Item = Record<string, Value>;

export class DynamoError extends Error {
  readonly type: string;

  constructor(type: string, message: string) {
    super(`DynamoDB ${type}: ${message}`);
    this.type = type;
  }
}

const isConditionFailure = (err: unknown) => err instanceof DynamoError && err.type === "ConditionalCheckFailedException";

function client(config: DynamoConfig) {
  const aws = new AwsClient({
    accessKeyId: config.accessKeyId,
    secretAccessKey: config.secretAccessKey,
    sessionToken: config.sessionToken,
    region: config.region,
    service: "dynamodb",
  });
  const url = config.endpoint ?? `https://dynamodb.${config.region}.amazonaws.com`;
  return async function call<T = Record<string, unknown>>(operation: string, body: Record<string, unknown>): Promise<T> {
    const res = await aws.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": `DynamoDB_20120810.${operation}` },
      body: JSON.stringify(body),
    });
    const payload = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) {
      const type =
        String(payload.__type ?? `HTTP ${res.status}`)
          .split("#")
          .pop() ?? "Error";
      throw new DynamoError(type, String(payload.message ?? payload.Message ?? ""));
    }
    return payload as T;
  };
}

const S = (value: string): Value => ({ S: value });
const N = (value: number): Value => ({ N: String(value) });
const str = (item: Item | undefined, name: string) => (item?.[name] as { S?: string } | undefined)?.S;
const num = (item: Item | undefined, name: string) => Number((item?.[name] as { N?: string } | undefined)?.N ?? 0);
const key = (pk: string, sk = "_") => ({ pk: S(pk), sk: S(sk) });

export function createDynamoStores(config: DynamoConfig) {
  const call = client(config);
  const TableName = config.table;
  const get = async (pk: string, sk = "_") =>
    (await call<{ Item?: Item }>("GetItem", { TableName, Key: key(pk, sk), ConsistentRead: true })).Item;

  const tokens: TokenStore = {
    // Two items per token (by id, and the hash → id lookup), written in an order that never
    // lets a hash resolve to a token it does not belong to: getByHash checks the hash again.
    async put(record) {
      const previous = await tokens.getById(record.id);
      if (previous && previous.token_hash !== record.token_hash)
        await call("DeleteItem", { TableName, Key: key(`tokenhash#${previous.token_hash}`) });
      await call("PutItem", { TableName, Item: { ...key(`token#${record.id}`), record: S(JSON.stringify(record)) } });
      await call("PutItem", { TableName, Item: { ...key(`tokenhash#${record.token_hash}`), id: S(record.id) } });
    },
    async getById(id) {
      const record = str(await get(`token#${id}`), "record");
      return record ? (JSON.parse(record) as TokenRecord) : null;
    },
    async getByHash(hash) {
      const id = str(await get(`tokenhash#${hash}`), "id");
      const record = id ? await tokens.getById(id) : null;
      return record?.token_hash === hash ? record : null;
    },
    async list() {
      const records: TokenRecord[] = [];
      let start: unknown;
      do {
        const page = await call<{ Items?: Item[]; LastEvaluatedKey?: unknown }>("Scan", {
          TableName,
          ConsistentRead: true,
          FilterExpression: "begins_with(pk, :prefix)",
          ExpressionAttributeValues: { ":prefix": S("token#") },
          ...(start ? { ExclusiveStartKey: start } : {}),
        });
        for (const item of page.Items ?? []) records.push(JSON.parse(str(item, "record") ?? "null") as TokenRecord);
        start = page.LastEvaluatedKey;
      } while (start);
      return records;
    },
    async delete(id) {
      const record = await tokens.getById(id);
      if (!record) return false;
      await call("DeleteItem", { TableName, Key: key(`tokenhash#${record.token_hash}`) });
      await call("DeleteItem", { TableName, Key: key(`token#${id}`) });
      return true;
    },
  };

  // One item per token holds both windows, so one conditional update keeps them exact together:
  // the same day, a new day of the same month, or a new month (or a first call).
  const quotaKey = (tokenId: string) => key(`quota#${tokenId}`, "windows");
  const readWindows = async (tokenId: string, at: Date) => {
    const keys = windowKeys(at);
    const item = await get(`quota#${tokenId}`, "windows");
    const day = str(item, "day_key") === keys.day ? num(item, "day_used") : 0;
    const month = str(item, "month_key") === keys.month ? num(item, "month_used") : 0;
    return { keys, day, month };
  };

  const quota: QuotaStore = {
    async consume(tokenId, units, plan, now) {
      const keys = windowKeys(now);
      const values = {
        ":u": N(units),
        ":day": S(keys.day),
        ":month": S(keys.month),
        ":dmax": N(plan.daily_units - units),
        ":mmax": N(plan.monthly_units - units),
        ":exp": N(keys.monthResetsAt + 86_400),
      };
      const attempts = [
        [
          "ADD day_used :u, month_used :u SET expires_at = :exp",
          "day_key = :day AND month_key = :month AND day_used <= :dmax AND month_used <= :mmax",
        ],
        [
          "SET day_key = :day, day_used = :u, expires_at = :exp ADD month_used :u",
          "day_key < :day AND month_key = :month AND month_used <= :mmax",
        ],
        [
          "SET day_key = :day, day_used = :u, month_key = :month, month_used = :u, expires_at = :exp",
          "attribute_not_exists(pk) OR month_key < :month",
        ],
      ] as const;
      const fitsAlone = units <= plan.daily_units && units <= plan.monthly_units;
      for (let round = 0; fitsAlone && round < 5; round++) {
        for (const [update, condition] of attempts) {
          // DynamoDB refuses values an expression does not use.
          const used = Object.fromEntries(
            Object.entries(values).filter(([name]) => `${update} ${condition}`.match(new RegExp(`${name}\\b`))),
          );
          try {
            await call("UpdateItem", {
              TableName,
              Key: quotaKey(tokenId),
              UpdateExpression: update,
              ConditionExpression: condition,
              ExpressionAttributeValues: used,
            });
            const after = await readWindows(tokenId, now);
            return { allowed: true, ...quotaState(keys, plan, after.day, after.month) };
          } catch (err) {
            if (!isConditionFailure(err)) throw err;
          }
        }
        // None applied: either the plan is used up, or another call moved the windows meanwhile.
        const current = await readWindows(tokenId, now);
        if (current.day + units > plan.daily_units || current.month + units > plan.monthly_units) break;
      }
      const current = await readWindows(tokenId, now);
      return { allowed: false, ...quotaState(keys, plan, current.day, current.month) };
    },
    async refund(tokenId, units, consumedAt) {
      const keys = windowKeys(consumedAt);
      for (const [window, value] of [
        ["day", keys.day],
        ["month", keys.month],
      ] as const) {
        const names = { "#key": `${window}_key`, "#used": `${window}_used` };
        try {
          await call("UpdateItem", {
            TableName,
            Key: quotaKey(tokenId),
            UpdateExpression: "ADD #used :neg",
            ConditionExpression: "#key = :window AND #used >= :u",
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ":neg": N(-units), ":u": N(units), ":window": S(value) },
          });
        } catch (err) {
          if (!isConditionFailure(err)) throw err;
          // Fewer units left than the refund: that window goes to zero, never below.
          await call("UpdateItem", {
            TableName,
            Key: quotaKey(tokenId),
            UpdateExpression: "SET #used = :zero",
            ConditionExpression: "#key = :window",
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ":zero": N(0), ":window": S(value) },
          }).catch((e: unknown) => {
            if (!isConditionFailure(e)) throw e;
          });
        }
      }
    },
    async peek(tokenId, plan, now) {
      const current = await readWindows(tokenId, now);
      return quotaState(current.keys, plan, current.day, current.month);
    },
  };

  const settings: SettingsStore = {
    async get<T>(account: string, name: string) {
      const value = str(await get(`settings#${account}`, name), "value");
      return value === undefined ? null : (JSON.parse(value) as T);
    },
    async put(account, name, value) {
      await call("PutItem", { TableName, Item: { ...key(`settings#${account}`, name), value: S(JSON.stringify(value)) } });
    },
    async delete(account, name) {
      await call("DeleteItem", { TableName, Key: key(`settings#${account}`, name) });
    },
  };

  const idempotency: IdempotencyStore = {
    async begin(account, name, fingerprint, now, leaseMs): Promise<IdempotencyBegin> {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await call("PutItem", {
            TableName,
            Item: {
              ...key(`idem#${account}`, name),
              fingerprint: S(fingerprint),
              state: S("in_progress"),
              until: N(now.getTime() + leaseMs),
              expires_at: N(Math.ceil((now.getTime() + leaseMs) / 1000) + 86_400),
            },
            ConditionExpression: "attribute_not_exists(pk) OR #until <= :now",
            ExpressionAttributeNames: { "#until": "until" },
            ExpressionAttributeValues: { ":now": N(now.getTime()) },
          });
          return { state: "started" };
        } catch (err) {
          if (!isConditionFailure(err)) throw err;
        }
        const item = await get(`idem#${account}`, name);
        if (!item) continue; // abandoned in between: try to start again
        if (str(item, "fingerprint") !== fingerprint) return { state: "conflict" };
        const response = str(item, "response");
        if (str(item, "state") === "completed" && response) return { state: "completed", response: JSON.parse(response) as StoredResponse };
        return { state: "in_progress" };
      }
      return { state: "in_progress" };
    },
    async complete(account, name, fingerprint, response, now, ttlMs) {
      await call("PutItem", {
        TableName,
        Item: {
          ...key(`idem#${account}`, name),
          fingerprint: S(fingerprint),
          state: S("completed"),
          until: N(now.getTime() + ttlMs),
          response: S(JSON.stringify(response)),
          expires_at: N(Math.ceil((now.getTime() + ttlMs) / 1000)),
        },
        ConditionExpression: "fingerprint = :fp",
        ExpressionAttributeValues: { ":fp": S(fingerprint) },
      }).catch((err: unknown) => {
        if (!isConditionFailure(err)) throw err;
      });
    },
    async abandon(account, name, fingerprint) {
      await call("DeleteItem", {
        TableName,
        Key: key(`idem#${account}`, name),
        ConditionExpression: "#state = :ip AND fingerprint = :fp",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":ip": S("in_progress"), ":fp": S(fingerprint) },
      }).catch((err: unknown) => {
        if (!isConditionFailure(err)) throw err;
      });
    },
  };

  return { tokens, quota, settings, idempotency };
}

/** Creates the table if it does not exist and waits until it is usable. */
export async function createDynamoTable(config: DynamoConfig): Promise<void> {
  const call = client(config);
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
  for (let i = 0; i < 120; i++) {
    const { Table } = await call<{ Table?: { TableStatus?: string } }>("DescribeTable", { TableName: config.table });
    if (Table?.TableStatus === "ACTIVE") return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`DynamoDB table ${config.table} did not become ACTIVE`);
}
