// What an isolate read from KV lately, kept a few seconds: every authenticated call read its
// token (two KV reads) and every SII call its account's proxy settings (one more), and on Workers
// each read costs CPU and a round trip. Bounded in entries and time; writes through the same store
// clear it, and other isolates see a change at most `ttlMs` later than KV alone would show it.

/** How long an isolate reuses a token record or a setting it read from KV, and how many it keeps. */
export const KV_MEMO_MS = 10_000;
export const KV_MEMO_ENTRIES = 1_000;

export interface Memo<T> {
  get(key: string, read: () => Promise<T>): Promise<T>;
  clear(): void;
}

export function memo<T>({ ttlMs, entries, keep = () => true, now = Date.now }: MemoOptions<T>): Memo<T> {
  const held = new Map<string, { value: T; until: number }>();
  return {
    async get(key, read) {
      const hit = held.get(key);
      if (hit && now() < hit.until) return hit.value;
      held.delete(key);
      const value = await read();
      if (!keep(value)) return value;
      if (held.size >= entries) {
        const oldest = held.keys().next().value;
        if (oldest !== undefined) held.delete(oldest);
      }
      held.set(key, { value, until: now() + ttlMs });
      return value;
    },
    clear() {
      held.clear();
    },
  };
}

export interface MemoOptions<T> {
  ttlMs: number;
  entries: number;
  /** Whether a value read is worth keeping (a token not found is not: it may be created next). */
  keep?: (value: T) => boolean;
  now?: () => number;
}
