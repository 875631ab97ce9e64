// When a job asks the SII again: 30 s, 30 s, 1 min, 2 min, 5 min, then every 10 min, each ±20 % so
// that jobs started together do not ask together (the cadence in docs/jobs.md).

const DELAYS_MS = [30_000, 30_000, 60_000, 120_000, 300_000];
const THEN_MS = 600_000;
const JITTER = 0.2;

/** How long after its `runs`-th step (0: its creation) a job runs again; `random` in [0, 1). */
export function nextDelayMs(runs: number, random: () => number = Math.random): number {
  const base = DELAYS_MS[runs] ?? THEN_MS;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

/** A job gives up 72 hours after its creation unless its kind says otherwise. */
export const JOB_LIFE_MS = 72 * 60 * 60 * 1000;
