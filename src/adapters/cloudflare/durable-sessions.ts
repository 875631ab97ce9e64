// SII sessions and call pacing in Durable Objects.
import type { SessionStore } from "../../ports/stores.ts";
import type { SiiSessions } from "./durable-objects.ts";

/** One Durable Object per taxpayer: keys start with "<rut>|". */
export function durableSessionStore(ns: DurableObjectNamespace<SiiSessions>): SessionStore {
  const taxpayer = (key: string) => ns.get(ns.idFromName(key.split("|", 1)[0] ?? key));
  return {
    get: (key, now) => taxpayer(key).get(key, now.getTime()),
    put: (key, sealed, ttlMs, now) => taxpayer(key).put(key, sealed, ttlMs, now.getTime()),
    delete: (key) => taxpayer(key).delete(key),
    reserve: (key, intervalMs, now, maxWaitMs = Number.POSITIVE_INFINITY) =>
      taxpayer(key).reserve(key, intervalMs, now.getTime(), maxWaitMs),
  };
}
