// Quota in a Durable Object per token: exact under concurrency.
import type { QuotaStore } from "../../ports/stores.ts";
import type { QuotaCounter } from "./durable-objects.ts";

export function durableQuotaStore(ns: DurableObjectNamespace<QuotaCounter>): QuotaStore {
  const counter = (tokenId: string) => ns.get(ns.idFromName(tokenId));
  return {
    consume: (tokenId, units, plan, now) => counter(tokenId).consume(units, plan, now.getTime()),
    refund: (tokenId, units, consumedAt) => counter(tokenId).refund(units, consumedAt.getTime()),
    peek: (tokenId, plan, now) => counter(tokenId).peek(plan, now.getTime()),
  };
}
