// The folio ledger of one account, issuer and type as one small document, and the pure steps every
// adapter applies to it inside its own atomic read-modify-write (a transaction, a Durable Object
// call, a conditional write). Used and void folios are kept as sorted, merged intervals, so the
// document grows with the number of gaps, not of folios.
import type { FolioAddResult, FolioAllocation, FolioClaim, FolioLedgerStore, FolioRangeRecord, FolioRangeState } from "../ports.ts";

type Interval = [number, number];

export interface LedgerState {
  /** Held ranges, lowest first. */
  ranges: FolioRangeRecord[];
  used: Interval[];
  voided: Interval[];
  /** Allocations made with an idempotency key, oldest first: the key and the folios it got. */
  keys: [string, Interval[]][];
  /** The low-folio threshold the account set for this issuer and type; absent (older documents too) when none. */
  umbral?: number | null;
}

/**
 * Allocation records kept per ledger: a retry comes within minutes, the oldest ones go first. Bounded
 * so the document stays well inside one DynamoDB item (400 KB) next to its sealed CAF files.
 */
export const MAX_ALLOCATION_RECORDS = 500;

export const emptyLedger = (): LedgerState => ({ ranges: [], used: [], voided: [], keys: [] });

function merged(intervals: Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  const out: Interval[] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

function without(intervals: Interval[], a: number, b: number): Interval[] {
  const out: Interval[] = [];
  for (const [x, y] of intervals) {
    if (y < a || x > b) out.push([x, y]);
    else {
      if (x < a) out.push([x, a - 1]);
      if (y > b) out.push([b + 1, y]);
    }
  }
  return out;
}

function countIn(intervals: Interval[], a: number, b: number): number {
  let n = 0;
  for (const [x, y] of intervals) n += Math.max(0, Math.min(y, b) - Math.max(x, a) + 1);
  return n;
}

/** The free stretches of `a`–`b`: what neither `blocked` interval covers. */
function gaps(a: number, b: number, blocked: Interval[]): Interval[] {
  const out: Interval[] = [];
  let from = a;
  for (const [x, y] of blocked) {
    if (y < from) continue;
    if (x > b) break;
    if (x > from) out.push([from, x - 1]);
    from = Math.max(from, y + 1);
  }
  if (from <= b) out.push([from, b]);
  return out;
}

const expand = (intervals: Interval[]): number[] => intervals.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i));

export function summary(state: LedgerState): FolioRangeState[] {
  return state.ranges.map(({ desde, hasta, autorizado, vence }) => {
    const usados = countIn(state.used, desde, hasta);
    const anulados = countIn(state.voided, desde, hasta);
    const free = gaps(desde, hasta, merged([...state.used, ...state.voided]))[0];
    return {
      desde,
      hasta,
      autorizado,
      vence,
      usados,
      anulados,
      disponibles: hasta - desde + 1 - usados - anulados,
      siguiente: free?.[0] ?? null,
    };
  });
}

export function addRange(state: LedgerState, range: FolioRangeRecord): FolioAddResult {
  const clash = state.ranges.find((r) => r.desde <= range.hasta && range.desde <= r.hasta);
  if (clash) return { state: "overlap", desde: clash.desde, hasta: clash.hasta };
  state.ranges = [...state.ranges, range].sort((a, b) => a.desde - b.desde);
  return { state: "added", rangos: summary(state) };
}

export function cafIn(state: LedgerState, folio: number): string | null {
  return state.ranges.find((r) => r.desde <= folio && folio <= r.hasta)?.caf ?? null;
}

/** The ranges folios may be taken from on `today` (YYYY-MM-DD): the ones not expired; all without a day. */
const usable = (state: LedgerState, today?: string): FolioRangeRecord[] =>
  today === undefined ? state.ranges : state.ranges.filter((r) => r.vence === null || r.vence >= today);

function recordKey(state: LedgerState, key: string | undefined, taken: Interval[]): void {
  if (key === undefined) return;
  state.keys.push([key, taken]);
  if (state.keys.length > MAX_ALLOCATION_RECORDS) state.keys.splice(0, state.keys.length - MAX_ALLOCATION_RECORDS);
}

const recorded = (state: LedgerState, key: string | undefined): Interval[] | undefined =>
  key === undefined ? undefined : state.keys.find(([k]) => k === key)?.[1];

/** Takes the lowest `count` free folios of the ranges usable on `today`; records them under `key` when one is given. */
export function allocateIn(state: LedgerState, count: number, key?: string, today?: string): FolioAllocation {
  if (!(Number.isInteger(count) && count >= 1)) throw new RangeError(`allocate: count must be a whole number from 1, not ${count}`);
  const done = recorded(state, key);
  if (done) return { state: "allocated", folios: expand(done), replayed: true };
  const blocked = merged([...state.used, ...state.voided]);
  const taken: Interval[] = [];
  let missing = count;
  for (const range of usable(state, today)) {
    for (const [a, b] of gaps(range.desde, range.hasta, blocked)) {
      if (missing === 0) break;
      const end = Math.min(b, a + missing - 1);
      taken.push([a, end]);
      missing -= end - a + 1;
    }
  }
  if (missing > 0) return { state: "exhausted", disponibles: count - missing };
  state.used = merged([...state.used, ...taken]);
  recordKey(state, key, taken);
  return { state: "allocated", folios: expand(taken), replayed: false };
}

/** Takes the named folios, all or none: each must be free in a range usable on `today`. Recorded under `key` as allocate does. */
export function claimIn(state: LedgerState, folios: number[], key?: string, today?: string): FolioClaim {
  const done = recorded(state, key);
  if (done) return { state: "claimed", folios: expand(done), replayed: true };
  const seen = new Set<number>();
  for (const folio of folios) {
    // Named twice is used twice.
    if (seen.has(folio)) return { state: "unavailable", folio, reason: "used" };
    seen.add(folio);
    const range = state.ranges.find((r) => r.desde <= folio && folio <= r.hasta);
    if (!range) return { state: "unavailable", folio, reason: "outside" };
    if (!usable(state, today).includes(range)) return { state: "unavailable", folio, reason: "expired" };
    if (countIn(state.voided, folio, folio)) return { state: "unavailable", folio, reason: "void" };
    if (countIn(state.used, folio, folio)) return { state: "unavailable", folio, reason: "used" };
  }
  const taken = merged(folios.map((f): Interval => [f, f]));
  state.used = merged([...state.used, ...taken]);
  recordKey(state, key, taken);
  return { state: "claimed", folios: expand(taken), replayed: false };
}

export function releaseIn(state: LedgerState, folios: number[]): number {
  let freed = 0;
  for (const folio of new Set(folios)) {
    if (countIn(state.used, folio, folio) === 0) continue;
    state.used = without(state.used, folio, folio);
    freed++;
  }
  // A retry with the key of a released folio must not get it back: it may be someone else's by then.
  if (freed) state.keys = state.keys.filter(([, taken]) => !folios.some((f) => countIn(taken, f, f) > 0));
  return freed;
}

/** Void folios are never handed out; an allocated folio annulled at the SII turns void. */
export function voidIn(state: LedgerState, desde: number, hasta: number): number {
  let added = 0;
  for (const range of state.ranges) {
    const a = Math.max(desde, range.desde);
    const b = Math.min(hasta, range.hasta);
    if (a > b) continue;
    added += b - a + 1 - countIn(state.voided, a, b);
    state.voided = merged([...state.voided, [a, b]]);
    state.used = without(state.used, a, b);
  }
  return added;
}

/** Sets (or, with null, removes) the low-folio threshold; answers it. */
export function setUmbralIn(state: LedgerState, umbral: number | null): number | null {
  state.umbral = umbral;
  return umbral;
}

export const umbralIn = (state: LedgerState): number | null => state.umbral ?? null;

export const parseLedger = (text: string | null | undefined): LedgerState => (text ? (JSON.parse(text) as LedgerState) : emptyLedger());

/**
 * Runs `work` on one ledger atomically: the adapter reads the document, applies `work` and writes it
 * back (only when `writes`) with nothing else changing it in between.
 */
export type LedgerUpdate = <T>(id: string, work: (state: LedgerState) => T, writes: boolean) => Promise<T>;

/** One ledger per account, issuer and type; the id keeps them apart whatever the account's name holds. */
export const ledgerId = (account: string, emisor: string, tipo: number): string => JSON.stringify([account, emisor.toUpperCase(), tipo]);

/** A FolioLedgerStore over an adapter's atomic update of one ledger document. */
export function ledgerStore(update: LedgerUpdate): FolioLedgerStore {
  return {
    add: (account, emisor, tipo, range) => update(ledgerId(account, emisor, tipo), (s) => addRange(s, range), true),
    ranges: (account, emisor, tipo) => update(ledgerId(account, emisor, tipo), summary, false),
    cafOf: (account, emisor, tipo, folio) => update(ledgerId(account, emisor, tipo), (s) => cafIn(s, folio), false),
    allocate: (account, emisor, tipo, count, key, today) =>
      update(ledgerId(account, emisor, tipo), (s) => allocateIn(s, count, key, today), true),
    claim: (account, emisor, tipo, folios, key, today) =>
      update(ledgerId(account, emisor, tipo), (s) => claimIn(s, folios, key, today), true),
    release: (account, emisor, tipo, folios) => update(ledgerId(account, emisor, tipo), (s) => releaseIn(s, folios), true),
    void: (account, emisor, tipo, desde, hasta) => update(ledgerId(account, emisor, tipo), (s) => voidIn(s, desde, hasta), true),
    setThreshold: (account, emisor, tipo, umbral) => update(ledgerId(account, emisor, tipo), (s) => setUmbralIn(s, umbral), true),
    threshold: (account, emisor, tipo) => update(ledgerId(account, emisor, tipo), umbralIn, false),
  };
}
