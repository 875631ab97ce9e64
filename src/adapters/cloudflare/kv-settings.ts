// Settings in KV: read on every SII call, rarely written (memoized as the tokens are, kv-tokens.ts).
import type { SettingsStore } from "../../ports/stores.ts";
import { KV_MEMO_ENTRIES, KV_MEMO_MS, memo } from "./memo.ts";

export function kvSettingsStore(kv: KVNamespace, now: () => number = Date.now): SettingsStore {
  const name = (account: string, key: string) => `${encodeURIComponent(account)}/${encodeURIComponent(key)}`;
  // The text as stored (none is held too: most accounts have no proxy), parsed for each caller.
  const texts = memo<string | null>({ ttlMs: KV_MEMO_MS, entries: KV_MEMO_ENTRIES, now });
  return {
    async get<T>(account: string, key: string) {
      const text = await texts.get(name(account, key), () => kv.get(name(account, key)));
      return text === null ? null : (JSON.parse(text) as T);
    },
    async put(account, key, value) {
      await kv.put(name(account, key), JSON.stringify(value));
      texts.clear();
    },
    async delete(account, key) {
      await kv.delete(name(account, key));
      texts.clear();
    },
  };
}
