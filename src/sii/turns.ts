// Whose turn it is to call the SII for a taxpayer, in this process (design §5, docs/sii-services.md §13).
// Calls queue in a lane per account and credential (one cached SII session serves one call at a
// time); a taxpayer has at most MAX_CALLS_PER_RUT calls under way, at most MAX_CALLS_PER_ACCOUNT of
// them from one account. So an account whose proxy never answers, or whose clave is wrong, holds
// its own lanes and never another account's turn. A call that has not started within its bound is
// refused with 429 and `Retry-After`, never left waiting behind someone else's timeouts.

import { ApiError } from "../lib/api-error.ts";

/**
 * Calls under way at once for one taxpayer in this process. Small because the SII limits
 * authenticated sessions per RUT ("superado el máximo de sesiones autenticadas", locked ~30 min) and
 * bans bursts (the RCV blocks scraper-like patterns); the pacing below spaces them anyway, so more
 * at once would only wait. Three lets two accounts work while a third account's call hangs.
 */
export const MAX_CALLS_PER_RUT = 3;
/** Calls under way at once for one taxpayer from one account (its clave and its certificate, say): never all of them. */
export const MAX_CALLS_PER_ACCOUNT = MAX_CALLS_PER_RUT - 1;

export interface Turn {
  rut: string;
  account: string;
  /** The session this call uses (account, taxpayer, ambiente, credential): one call at a time each. */
  lane: string;
}

interface Waiting {
  turn: Turn;
  start: () => void;
}

interface Taxpayer {
  running: number;
  accounts: Map<string, number>;
  lanes: Set<string>;
  /** In arrival order: a lane's calls start in the order they came. */
  waiting: Waiting[];
}

const taxpayers = new Map<string, Taxpayer>();

function canStart(taxpayer: Taxpayer, turn: Turn): boolean {
  return (
    taxpayer.running < MAX_CALLS_PER_RUT &&
    (taxpayer.accounts.get(turn.account) ?? 0) < MAX_CALLS_PER_ACCOUNT &&
    !taxpayer.lanes.has(turn.lane)
  );
}

function begin(taxpayer: Taxpayer, turn: Turn): void {
  taxpayer.running++;
  taxpayer.accounts.set(turn.account, (taxpayer.accounts.get(turn.account) ?? 0) + 1);
  taxpayer.lanes.add(turn.lane);
}

function end(taxpayer: Taxpayer, turn: Turn): void {
  taxpayer.running--;
  const calls = (taxpayer.accounts.get(turn.account) ?? 1) - 1;
  if (calls > 0) taxpayer.accounts.set(turn.account, calls);
  else taxpayer.accounts.delete(turn.account);
  taxpayer.lanes.delete(turn.lane);
  // Every waiting call that may start now does, oldest first; one held back by its own account's
  // or lane's calls lets a later one from another account pass.
  for (const next of [...taxpayer.waiting]) {
    if (!canStart(taxpayer, next.turn)) continue;
    taxpayer.waiting.splice(taxpayer.waiting.indexOf(next), 1);
    begin(taxpayer, next.turn);
    next.start();
  }
  if (taxpayer.running === 0 && taxpayer.waiting.length === 0) taxpayers.delete(turn.rut);
}

/** Whole seconds, at least 1, for `Retry-After`. */
export function retryAfter(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}

function busy(waitMs: number): ApiError {
  return new ApiError(
    429,
    "SII_RATE_LIMIT",
    `Earlier calls for this taxpayer (with this credential, or as many as the gateway makes at once per taxpayer) did not finish within ${waitMs} ms; retry shortly`,
    { headers: { "Retry-After": retryAfter(waitMs) }, details: { reason: "taxpayer_busy", waited_ms: waitMs } },
  );
}

/**
 * Runs `work` when it is `turn`'s turn, waiting at most `waitMs` for it (then 429). `work` is told
 * how long the call waited, so later waits (pacing) stay within the same bound.
 */
export async function inTurn<T>(turn: Turn, waitMs: number, work: (waitedMs: number) => Promise<T>): Promise<T> {
  let taxpayer = taxpayers.get(turn.rut);
  if (!taxpayer) {
    taxpayer = { running: 0, accounts: new Map(), lanes: new Set(), waiting: [] };
    taxpayers.set(turn.rut, taxpayer);
  }
  const held = taxpayer;
  const since = Date.now();
  if (canStart(held, turn)) begin(held, turn);
  else {
    await new Promise<void>((resolve, reject) => {
      const entry: Waiting = {
        turn,
        start: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        held.waiting.splice(held.waiting.indexOf(entry), 1);
        reject(busy(waitMs));
      }, waitMs);
      held.waiting.push(entry);
    });
  }
  try {
    return await work(Date.now() - since);
  } finally {
    end(held, turn);
  }
}
