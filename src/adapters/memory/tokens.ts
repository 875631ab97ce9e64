// In-memory token store: for unit tests and single-process experiments. Synchronous inside each method,
// so each call is atomic on its own.
import type { TokenRecord, TokenStore } from "../../ports/stores.ts";
import { copy } from "./copy.ts";

export function memoryTokenStore(): TokenStore {
  const byId = new Map<string, TokenRecord>();
  return {
    async put(record) {
      byId.set(record.id, copy(record));
    },
    async getById(id) {
      const r = byId.get(id);
      return r ? copy(r) : null;
    },
    async getByHash(hash) {
      for (const r of byId.values()) if (r.token_hash === hash) return copy(r);
      return null;
    },
    async list() {
      return [...byId.values()].map(copy);
    },
    async delete(id) {
      return byId.delete(id);
    },
  };
}
