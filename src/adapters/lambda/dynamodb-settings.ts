// The DynamoDB table's settings items (layout in dynamodb-stores.ts).
import type { SettingsStore } from "../../ports/stores.ts";
import { type Call, type GetItem, key, parseJson, S, text } from "./dynamodb-wire.ts";

export function dynamoSettingsStore(call: Call, TableName: string, getItem: GetItem): SettingsStore {
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
