// In-memory SII sessions and call pacing. Synchronous inside each method, so each call is atomic on its own.
import type { SessionStore } from "../../ports/stores.ts";

/** Sessions in process memory: right for one Node process (a cache; a restart only means new logins). */
export function memorySessionStore(maxEntries = 10_000): SessionStore {
  const entries = new Map<string, { sealed: string; until: number }>();
  const nextSlot = new Map<string, number>();
  return {
    async get(key, now) {
      const entry = entries.get(key);
      if (!entry || entry.until <= now.getTime()) return null;
      return entry.sealed;
    },
    async put(key, sealed, ttlMs, now) {
      entries.delete(key);
      entries.set(key, { sealed, until: now.getTime() + ttlMs });
      // Oldest first: a Map keeps insertion order.
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(oldest);
      }
    },
    async delete(key) {
      entries.delete(key);
    },
    async reserve(key, intervalMs, now, maxWaitMs = Number.POSITIVE_INFINITY) {
      const slot = Math.max(now.getTime(), nextSlot.get(key) ?? 0);
      if (slot - now.getTime() > maxWaitMs) return slot - now.getTime();
      nextSlot.set(key, slot + intervalMs);
      if (nextSlot.size > maxEntries) for (const [k, at] of nextSlot) if (at <= now.getTime()) nextSlot.delete(k);
      return slot - now.getTime();
    },
  };
}
