// In-memory settings store: for unit tests and single-process experiments. Synchronous inside each method,
// so each call is atomic on its own.
import type { SettingsStore } from "../../ports/stores.ts";
import { copy } from "./copy.ts";

export function memorySettingsStore(): SettingsStore {
  const values = new Map<string, unknown>();
  return {
    async get<T>(account: string, key: string) {
      const v = values.get(`${account}|${key}`);
      return v === undefined ? null : (copy(v) as T);
    },
    async put(account, key, value) {
      values.set(`${account}|${key}`, copy(value));
    },
    async delete(account, key) {
      values.delete(`${account}|${key}`);
    },
  };
}
