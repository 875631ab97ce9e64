// In-memory quota store: for unit tests and single-process experiments. Synchronous inside each method,
// so each call is atomic on its own.
import type { QuotaStore } from "../../ports/stores.ts";
import { fits, quotaState, windowKeys } from "../quota-windows.ts";

export function memoryQuotaStore(): QuotaStore {
  const used = new Map<string, number>();
  const get = (k: string) => used.get(k) ?? 0;
  return {
    async consume(tokenId, units, plan, now) {
      const keys = windowKeys(now);
      const day = `${tokenId}|${keys.day}`;
      const month = `${tokenId}|${keys.month}`;
      const allowed = fits(plan, get(day), get(month), units);
      if (allowed) {
        used.set(day, get(day) + units);
        used.set(month, get(month) + units);
      }
      return { allowed, ...quotaState(keys, plan, get(day), get(month)) };
    },
    async refund(tokenId, units, consumedAt) {
      const keys = windowKeys(consumedAt);
      for (const k of [`${tokenId}|${keys.day}`, `${tokenId}|${keys.month}`]) used.set(k, Math.max(0, get(k) - units));
    },
    async peek(tokenId, plan, now) {
      const keys = windowKeys(now);
      return quotaState(keys, plan, get(`${tokenId}|${keys.day}`), get(`${tokenId}|${keys.month}`));
    },
  };
}
