// The DynamoDB table's token items (layout in dynamodb-stores.ts).
import type { TokenRecord, TokenStore } from "../../ports/stores.ts";
import { type Call, conditional, type GetItem, isRecord, itemIn, type Json, key, parseJson, S, text } from "./dynamodb-wire.ts";

// Tokens: the record by id, and a lookup item hash → id. Without transactions the two items are
// written one after the other, in an order where a half-done change is harmless: the lookup is
// written first and getByHash checks the record's own hash, so a stale lookup resolves to nothing.
export function dynamoTokenStore(call: Call, TableName: string, getItem: GetItem): TokenStore {
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
