// When a failed delivery is tried again: the schedule after Svix's (docs.svix.com/retries), each
// delay ±10 % so many endpoints failing at once do not come back at once, and a receiver's Retry-After
// honoured when it asks for longer (never past 24 h).

/** The delay before attempt n+1 after attempt n failed (index n-1); after the last, the event is given up. */
export const RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
] as const;
/** Attempts per event: the first at once, then one after each delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const RETRY_AFTER_CAP_MS = 24 * 3_600_000;

/** The delay after failed attempt `attempt` (1-based) with jitter from `random` in [0, 1), or null when none is left. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.9 + 0.2 * random()));
}

/** A Retry-After header (seconds, or an HTTP date) as a delay from `now`, capped; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d{1,10}$/.test(text)) return Math.min(Number(text) * 1000, RETRY_AFTER_CAP_MS);
  // Otherwise an HTTP-date (RFC 9110 §10.2.3: "Fri, 04 Dec 2026 10:00:00 GMT"), which has letters; `-5` is neither.
  if (text.length > 64 || !/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.min(Math.max(0, at - now), RETRY_AFTER_CAP_MS);
}

/** When attempt `attempt` + 1 happens (ms), or null when the event is given up. */
export function nextAttemptAt(attempt: number, retryAfter: string | null, now: number, random: () => number = Math.random): number | null {
  const delay = retryDelayMs(attempt, random);
  if (delay === null) return null;
  return now + Math.max(delay, retryAfterMs(retryAfter, now) ?? 0);
}
