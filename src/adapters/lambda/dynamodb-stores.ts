// Lambda state in one DynamoDB table, spoken to through DynamoDB's JSON API with SigV4
// (aws4fetch): no SDK. Every read is strongly consistent, and every write that must be exact is a
// single-item conditional write, so the adapter also runs on DynamoDB-compatible servers without
// transactions (dynalite in the tests).
//
//   pk                    sk              attributes
//   token#<id>            token           record (TokenRecord JSON)
//   tokenhash#<hash>      token           id (lookup by hash, kept as an item rather than a GSI: GSIs are never consistent)
//   quota#<tokenId>       month#YYYY-MM   used (the month), d01 … d31 (each day of that month), expires_at
//   settings#<account>    <key>           value (JSON)
//   cache#<key>           cache           value, until_ms ("" = kept for good), expires_at
//   idem#<account>        <key>           state, fingerprint, until_ms, response (JSON), expires_at
//   idemcount#<account>   h#YYYY-MM-DDTHH n (answers completed in that UTC hour), expires_at
//   folios#<ledger id>    ledger          state, version (dynamodb-folios.ts)
//
// `expires_at` (unix seconds) is there for a DynamoDB TTL on that attribute, which removes dead
// quota months, idempotency records and their hourly counts (createDynamoTable enables it). No
// read depends on it: each read compares `until_ms` or the hour itself with the clock.
import type {
  CacheStore,
  FolioLedgerStore,
  IdempotencyStore,
  Plan,
  QuotaDecision,
  QuotaState,
  QuotaStore,
  SettingsStore,
  TokenRecord,
  TokenStore,
} from "../../ports.ts";
import { quotaState, type WindowKeys, windowKeys } from "../quota-windows.ts";
import { dynamoFolioLedgerStore } from "./dynamodb-folios.ts";
import { dynamoIdempotencyStore } from "./dynamodb-idempotency.ts";
import {
  type Call,
  conditional,
  count,
  type DynamoConfig,
  DynamoError,
  dynamoClient,
  type GetItem,
  isConditionFailed,
  isRecord,
  itemIn,
  type Json,
  type Key,
  key,
  N,
  parseJson,
  S,
  text,
} from "./dynamodb-wire.ts";

export { type DynamoConfig, DynamoError, isConditionFailed } from "./dynamodb-wire.ts";

export interface DynamoStores {
  tokens: TokenStore;
  quota: QuotaStore;
  settings: SettingsStore;
  idempotency: IdempotencyStore;
  cache: CacheStore;
  folios: FolioLedgerStore;
}

// --- Stores --------------------------------------------------------------------------------

export function createDynamoStores(config: DynamoConfig): DynamoStores {
  const call = dynamoClient(config);
  const TableName = config.table;
  const getItem = async (k: Key) => itemIn(await call("GetItem", { TableName, Key: k, ConsistentRead: true }), "Item");
  return {
    tokens: dynamoTokenStore(call, TableName, getItem),
    quota: dynamoQuotaStore(call, TableName, getItem),
    settings: dynamoSettingsStore(call, TableName, getItem),
    idempotency: dynamoIdempotencyStore(call, TableName, getItem),
    cache: dynamoCacheStore(call, TableName, getItem),
    folios: dynamoFolioLedgerStore(call, TableName, getItem),
  };
}

// Tokens: the record by id, and a lookup item hash → id. Without transactions the two items are
// written one after the other, in an order where a half-done change is harmless: the lookup is
// written first and getByHash checks the record's own hash, so a stale lookup resolves to nothing.
function dynamoTokenStore(call: Call, TableName: string, getItem: GetItem): TokenStore {
  const recordKey = (id: string) => key(`token#${id}`, "token");
  const lookupKey = (hash: string) => key(`tokenhash#${hash}`, "token");

  const parseRecord = (item: Json | undefined): TokenRecord | null => {
    const record = parseJson(text(item, "record"));
    return isRecord(record) ? (record as unknown as TokenRecord) : null;
  };

  // Conditional, so a lookup another token has taken over (same hash) stays.
  const dropLookup = (hash: string, id: string) =>
    conditional(
      call("DeleteItem", {
        TableName,
        Key: lookupKey(hash),
        ConditionExpression: "id = :id",
        ExpressionAttributeValues: { ":id": S(id) },
      }),
    );

  const store: TokenStore = {
    async put(record) {
      await call("PutItem", { TableName, Item: { ...lookupKey(record.token_hash), id: S(record.id) } });
      const old = await call("PutItem", {
        TableName,
        Item: { ...recordKey(record.id), record: S(JSON.stringify(record)) },
        ReturnValues: "ALL_OLD",
      });
      const previous = parseRecord(itemIn(old, "Attributes"));
      if (previous && previous.token_hash !== record.token_hash) await dropLookup(previous.token_hash, record.id);
    },
    async getById(id) {
      return parseRecord(await getItem(recordKey(id)));
    },
    async getByHash(hash) {
      const id = text(await getItem(lookupKey(hash)), "id");
      const record = id === undefined ? null : await store.getById(id);
      return record?.token_hash === hash ? record : null;
    },
    // A Scan over the whole table: an admin operation on a table of modest size.
    async list() {
      const records: TokenRecord[] = [];
      let startKey: unknown;
      do {
        const page = await call("Scan", {
          TableName,
          ConsistentRead: true,
          FilterExpression: "begins_with(pk, :prefix)",
          ExpressionAttributeValues: { ":prefix": S("token#") },
          ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
        });
        const items = Array.isArray(page.Items) ? page.Items : [];
        for (const item of items) {
          const record = isRecord(item) ? parseRecord(item) : null;
          if (record) records.push(record);
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey !== undefined);
      return records;
    },
    async delete(id) {
      // ALL_OLD tells, atomically, whether this call is the one that removed the record.
      const old = await call("DeleteItem", { TableName, Key: recordKey(id), ReturnValues: "ALL_OLD" });
      const previous = parseRecord(itemIn(old, "Attributes"));
      if (!previous) return false;
      await dropLookup(previous.token_hash, id);
      return true;
    },
  };
  return store;
}

// Quota: one item per token and month, holding the month's count and a count per day of it. The
// day window lies inside the month window, so a single conditional UpdateItem checks and adds
// both at once: atomic without a transaction, and it returns the exact counts it produced.
function dynamoQuotaStore(call: Call, TableName: string, getItem: GetItem): QuotaStore {
  const monthKey = (tokenId: string, keys: WindowKeys) => key(`quota#${tokenId}`, `month#${keys.month}`);
  const dayAttribute = (keys: WindowKeys) => `d${keys.day.slice(8, 10)}`;
  // A week of slack after the month ends before a TTL may remove the item.
  const expiresAt = (keys: WindowKeys) => keys.monthResetsAt + 7 * 86_400;

  const stateOf = (item: Json | undefined, keys: WindowKeys, plan: Plan): QuotaState =>
    quotaState(keys, plan, count(item, dayAttribute(keys)), count(item, "used"));

  const read = async (tokenId: string, keys: WindowKeys, plan: Plan) => stateOf(await getItem(monthKey(tokenId, keys)), keys, plan);

  const refused = async (tokenId: string, keys: WindowKeys, plan: Plan): Promise<QuotaDecision> => ({
    allowed: false,
    ...(await read(tokenId, keys, plan)),
  });

  /** The common refund: both counts hold at least `units`. False when one does not. */
  const subtract = (tokenId: string, keys: WindowKeys, units: number) =>
    conditional(
      call("UpdateItem", {
        TableName,
        Key: monthKey(tokenId, keys),
        UpdateExpression: "ADD used :minus, #day :minus",
        ConditionExpression: "used >= :units AND #day >= :units",
        ExpressionAttributeNames: { "#day": dayAttribute(keys) },
        ExpressionAttributeValues: { ":minus": N(-units), ":units": N(units) },
      }),
    );

  /** Clamps at zero: writes the new counts only if nobody changed the ones read meanwhile. */
  const clampTo = (tokenId: string, keys: WindowKeys, item: Json, units: number) => {
    const day = dayAttribute(keys);
    const [monthUsed, dayUsed] = [count(item, "used"), count(item, day)];
    return conditional(
      call("UpdateItem", {
        TableName,
        Key: monthKey(tokenId, keys),
        UpdateExpression: "SET used = :month, #day = :day",
        ConditionExpression: "(attribute_not_exists(used) OR used = :oldMonth) AND (attribute_not_exists(#day) OR #day = :oldDay)",
        ExpressionAttributeNames: { "#day": day },
        ExpressionAttributeValues: {
          ":month": N(Math.max(0, monthUsed - units)),
          ":day": N(Math.max(0, dayUsed - units)),
          ":oldMonth": N(monthUsed),
          ":oldDay": N(dayUsed),
        },
      }),
    );
  };

  return {
    async consume(tokenId, units, plan, now) {
      const keys = windowKeys(now);
      if (units > plan.daily_units || units > plan.monthly_units) return refused(tokenId, keys, plan);
      const day = dayAttribute(keys);
      try {
        const result = await call("UpdateItem", {
          TableName,
          Key: monthKey(tokenId, keys),
          UpdateExpression: "ADD used :units, #day :units SET expires_at = :expires",
          ConditionExpression: "(attribute_not_exists(used) OR used <= :monthMax) AND (attribute_not_exists(#day) OR #day <= :dayMax)",
          ExpressionAttributeNames: { "#day": day },
          ExpressionAttributeValues: {
            ":units": N(units),
            ":monthMax": N(plan.monthly_units - units),
            ":dayMax": N(plan.daily_units - units),
            ":expires": N(expiresAt(keys)),
          },
          ReturnValues: "ALL_NEW",
        });
        return { allowed: true, ...stateOf(itemIn(result, "Attributes"), keys, plan) };
      } catch (err) {
        if (!isConditionFailed(err)) throw err;
        return refused(tokenId, keys, plan);
      }
    },
    async refund(tokenId, units, consumedAt) {
      if (units <= 0) return;
      const keys = windowKeys(consumedAt);
      if (await subtract(tokenId, keys, units)) return;
      // Fewer units left than the refund: compare-and-set to the clamped counts, again if a
      // concurrent call moved them between the read and the write.
      for (let attempt = 0; attempt < 10; attempt++) {
        const item = await getItem(monthKey(tokenId, keys));
        if (!item) return; // nothing was counted in that month
        if (await clampTo(tokenId, keys, item, units)) return;
      }
      throw new Error(`DynamoDB quota refund for ${tokenId} kept conflicting with other writes`);
    },
    async peek(tokenId, plan, now) {
      return read(tokenId, windowKeys(now), plan);
    },
  };
}

function dynamoSettingsStore(call: Call, TableName: string, getItem: GetItem): SettingsStore {
  const settingKey = (account: string, name: string) => key(`settings#${account}`, name);
  return {
    async get<T = unknown>(account: string, name: string): Promise<T | null> {
      const value = parseJson(text(await getItem(settingKey(account, name)), "value"));
      // The value is the JSON this store wrote; the caller names its type.
      return value === undefined ? null : (value as T);
    },
    async put(account, name, value) {
      await call("PutItem", { TableName, Item: { ...settingKey(account, name), value: S(JSON.stringify(value)) } });
    },
    async delete(account, name) {
      await call("DeleteItem", { TableName, Key: settingKey(account, name) });
    },
  };
}

// Cache: `until_ms` is checked on read (a DynamoDB TTL removes dead entries only eventually).
function dynamoCacheStore(call: Call, TableName: string, getItem: GetItem): CacheStore {
  const cacheKey = (name: string) => key(`cache#${name}`, "cache");
  return {
    async get(name, now) {
      const item = await getItem(cacheKey(name));
      const until = text(item, "until_ms");
      if (until !== undefined && until !== "" && Number(until) <= now.getTime()) return null;
      return text(item, "value") ?? null;
    },
    async put(name, value, now, ttlMs) {
      const until = ttlMs === undefined ? "" : String(now.getTime() + ttlMs);
      const expiry = ttlMs === undefined ? {} : { expires_at: N(Math.ceil((now.getTime() + ttlMs) / 1000) + 86_400) };
      await call("PutItem", { TableName, Item: { ...cacheKey(name), value: S(value), until_ms: S(until), ...expiry } });
    },
  };
}

// --- Table ---------------------------------------------------------------------------------

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
