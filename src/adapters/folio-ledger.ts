// The folio ledger of one account, issuer and type as one small document, and the pure steps every
// adapter applies to it inside its own atomic read-modify-write (a transaction, a Durable Object
// call, a conditional write). Used and void folios are kept as sorted, merged intervals, so the
// document grows with the number of gaps, not of folios.
import type {
  FolioAddResult,
  FolioAllocation,
  FolioClaim,
  FolioHold,
  FolioLedgerStore,
  FolioRangeRecord,
  FolioRangeState,
} from "../ports/stores.ts";

type Interval = [number, number];

export interface LedgerState {
  /** Held ranges, lowest first. */
  ranges: FolioRangeRecord[];
  /** Folios taken: held by an attempt, or in an answer produced. */
  used: Interval[];
  /** Folios never handed out again: annulled at the SII, or unanswered (below). */
  voided: Interval[];
  /** The part of `voided` the gateway voided because the attempt holding them stopped without saying whether an answer left. */
  unanswered?: Interval[];
  /** Every allocation not yet given back, oldest first (documents written before holds existed have none). */
  holds?: HoldRecord[];
  /** The low-folio threshold the account set for this issuer and type; absent (older documents too) when none. */
  umbral?: number | null;
  /** Only in an issuer's register (registerId): which account holds each range of the issuer and type. */
  holders?: { desde: number; hasta: number; account: string }[];
}

/** An allocation as the ledger keeps it. See FolioHold in src/ports/stores.ts. */
interface HoldRecord {
  id: string;
  print: string;
  owner: string;
  keyed: boolean;
  folios: Interval[];
  /** pending: taken, no answer yet; answered: an answer holding them was produced (kept for a retry's takeover). */
  state: "pending" | "answered";
  /** Pending: when its holder is deemed gone. Answered: when the record is forgotten. */
  until: number;
}

/**
 * Answered records kept per ledger (pending ones are never dropped): a retry comes within minutes, the oldest
 * go first. Bounded so the document stays well inside one DynamoDB item (400 KB) next to its sealed CAF files.
 */
export const MAX_ALLOCATION_RECORDS = 500;
/** How long an answered record, or a keyed pending one whose holder is gone, waits for a retry: an Idempotency-Key's life. */
export const HOLD_KEPT_MS = 24 * 60 * 60 * 1000;

export const emptyLedger = (): LedgerState => ({ ranges: [], used: [], voided: [], unanswered: [], holds: [] });

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
    const sinRespuesta = countIn(state.unanswered ?? [], desde, hasta);
    const anulados = countIn(state.voided, desde, hasta) - sinRespuesta;
    const free = gaps(desde, hasta, merged([...state.used, ...state.voided]))[0];
    return {
      desde,
      hasta,
      autorizado,
      vence,
      usados,
      anulados,
      sin_respuesta: sinRespuesta,
      disponibles: hasta - desde + 1 - usados - anulados - sinRespuesta,
      siguiente: free?.[0] ?? null,
    };
  });
}

export function addRange(state: LedgerState, range: FolioRangeRecord): FolioAddResult {
  const clash = state.ranges.find((r) => r.desde <= range.hasta && range.desde <= r.hasta);
  if (clash) return { state: "overlap", desde: clash.desde, hasta: clash.hasta, elsewhere: false };
  state.ranges = [...state.ranges, range].sort((a, b) => a.desde - b.desde);
  return { state: "added", rangos: summary(state) };
}

/**
 * Records in an issuer's register that `account` holds `range`: null when no other account holds a folio of
 * it, else the range another account holds (nothing recorded). The account's own ranges are left to its
 * ledger, which refuses an overlap with them; recording is idempotent, so a retry after a crash between the
 * register and the ledger adds the range.
 */
export function registerIn(state: LedgerState, range: { desde: number; hasta: number }, account: string) {
  const holders = state.holders ?? [];
  const clash = holders.find((h) => h.desde <= range.hasta && range.desde <= h.hasta && h.account !== account);
  if (clash) return { desde: clash.desde, hasta: clash.hasta };
  if (!holders.some((h) => h.desde === range.desde && h.hasta === range.hasta)) {
    state.holders = [...holders, { desde: range.desde, hasta: range.hasta, account }];
  }
  return null;
}

export function cafIn(state: LedgerState, folio: number): string | null {
  return state.ranges.find((r) => r.desde <= folio && folio <= r.hasta)?.caf ?? null;
}

/** The ranges folios may be taken from on `today` (YYYY-MM-DD): the ones not expired; all without a day. */
const usable = (state: LedgerState, today?: string): FolioRangeRecord[] =>
  today === undefined ? state.ranges : state.ranges.filter((r) => r.vence === null || r.vence >= today);

/**
 * Ends what the ledger can end on its own at `now`: a pending hold whose holder is gone turns its folios void
 * (unanswered) — at once without a key (nobody can come back for it), after HOLD_KEPT_MS with one (its retry
 * takes it over until then); an answered record past its time is forgotten; past MAX_ALLOCATION_RECORDS the
 * oldest answered ones go.
 */
function sweep(state: LedgerState, now: number): void {
  const kept: HoldRecord[] = [];
  for (const hold of state.holds ?? []) {
    const gone = hold.state === "pending" ? now >= hold.until + (hold.keyed ? HOLD_KEPT_MS : 0) : now >= hold.until;
    if (!gone) kept.push(hold);
    else if (hold.state === "pending") voidUnanswered(state, hold.folios);
  }
  let answered = kept.filter((h) => h.state === "answered").length;
  state.holds = kept.filter((h) => h.state === "pending" || answered-- <= MAX_ALLOCATION_RECORDS);
}

function voidUnanswered(state: LedgerState, folios: Interval[]): void {
  state.voided = merged([...state.voided, ...folios]);
  state.unanswered = merged([...(state.unanswered ?? []), ...folios]);
  for (const [a, b] of folios) state.used = without(state.used, a, b);
}

type Taken = { state: "taken"; folios: number[]; replayed: boolean } | Exclude<FolioAllocation, { state: "allocated" }>;

/**
 * The record `hold` names: a new attempt at a request whose holder is gone (or whose answer was produced but
 * perhaps never delivered: the idempotency layer runs a retry only then, and refuses the first attempt's
 * answer should it still come, src/platform/idempotency.ts) takes it over; one still held is
 * `busy`; another request under the same key is a `conflict`.
 */
function takeOver(state: LedgerState, hold: FolioHold): Taken | null {
  const record = state.holds?.find((h) => h.id === hold.id);
  if (!record) return null;
  if (record.print !== hold.print) return { state: "conflict" };
  if (record.state === "pending" && record.owner !== hold.owner && hold.now < record.until) return { state: "busy", until: record.until };
  Object.assign(record, { owner: hold.owner, state: "pending", until: hold.now + hold.leaseMs });
  return { state: "taken", folios: expand(record.folios), replayed: true };
}

function holdNew(state: LedgerState, hold: FolioHold, taken: Interval[]): void {
  state.used = merged([...state.used, ...taken]);
  const record: HoldRecord = {
    id: hold.id,
    print: hold.print,
    owner: hold.owner,
    keyed: hold.keyed,
    folios: taken,
    state: "pending",
    until: hold.now + hold.leaseMs,
  };
  state.holds = [...(state.holds ?? []), record];
}

const blockedIn = (state: LedgerState): Interval[] => merged([...state.used, ...state.voided]);

/** Takes the lowest `count` free folios of the ranges usable on `today`, held by `hold` until it settles or gives them back. */
export function allocateIn(state: LedgerState, count: number, hold: FolioHold, today?: string): FolioAllocation {
  if (!(Number.isInteger(count) && count >= 1)) throw new RangeError(`allocate: count must be a whole number from 1, not ${count}`);
  sweep(state, hold.now);
  const again = takeOver(state, hold);
  if (again) return again.state === "taken" ? { ...again, state: "allocated" } : again;
  const blocked = blockedIn(state);
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
  holdNew(state, hold, taken);
  return { state: "allocated", folios: expand(taken), replayed: false };
}

/** Takes the named folios, all or none: each must be free in a range usable on `today`. Held as allocate holds. */
export function claimIn(state: LedgerState, folios: number[], hold: FolioHold, today?: string): FolioClaim {
  sweep(state, hold.now);
  const again = takeOver(state, hold);
  if (again)
    return again.state === "taken" ? { ...again, state: "claimed" } : (again as Exclude<FolioClaim, { state: "claimed" | "unavailable" }>);
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
  holdNew(state, hold, taken);
  return { state: "claimed", folios: expand(taken), replayed: false };
}

const heldBy = (state: LedgerState, hold: FolioHold): HoldRecord | undefined =>
  state.holds?.find((h) => h.id === hold.id && h.owner === hold.owner && h.state === "pending");

/**
 * The holder's answer holding its folios is about to be produced: its record turns answered, so no failure
 * gives them back. False when `hold` holds them no longer (its lease ran out and a retry took them, or they were
 * voided): the caller must then not answer them.
 */
export function settleIn(state: LedgerState, hold: FolioHold): boolean {
  const record = heldBy(state, hold);
  if (!record) return false;
  // Without a key no retry can come back for the record: the folios simply stay used.
  if (!record.keyed) state.holds = (state.holds ?? []).filter((h) => h !== record);
  else Object.assign(record, { state: "answered", until: hold.now + HOLD_KEPT_MS });
  return true;
}

/** Gives the folios `hold` holds back, only while it holds them and no answer was produced; answers those freed. */
export function releaseIn(state: LedgerState, hold: FolioHold): number[] {
  const record = heldBy(state, hold);
  if (!record) return [];
  for (const [a, b] of record.folios) state.used = without(state.used, a, b);
  state.holds = (state.holds ?? []).filter((h) => h !== record);
  return expand(record.folios);
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

/** A ledger document; one written before holds existed keeps its folios used and drops its old key records. */
export function parseLedger(text: string | null | undefined): LedgerState {
  if (!text) return emptyLedger();
  const { keys: _keys, ...state } = JSON.parse(text) as LedgerState & { keys?: unknown };
  return state;
}

/**
 * Runs `work` on one ledger atomically: the adapter reads the document, applies `work` and writes it
 * back (only when `writes`) with nothing else changing it in between.
 */
export type LedgerUpdate = <T>(id: string, work: (state: LedgerState) => T, writes: boolean) => Promise<T>;

/** One ledger per account, issuer and type; the id keeps them apart whatever the account's name holds. */
export const ledgerId = (account: string, emisor: string, tipo: number): string => JSON.stringify([account, emisor.toUpperCase(), tipo]);
/** One register per issuer and type across accounts: two items, so it is never an account's ledger id. */
export const registerId = (emisor: string, tipo: number): string => JSON.stringify([emisor.toUpperCase(), tipo]);

/** Adds `range` to the account's ledger once the issuer's register says no other account holds a folio of it. */
export async function addHeld(
  register: () => Promise<{ desde: number; hasta: number } | null>,
  add: () => Promise<FolioAddResult>,
): Promise<FolioAddResult> {
  const elsewhere = await register();
  return elsewhere ? { state: "overlap", ...elsewhere, elsewhere: true } : add();
}

/** A FolioLedgerStore over an adapter's atomic update of one ledger document. */
export function ledgerStore(update: LedgerUpdate): FolioLedgerStore {
  return {
    add: (account, emisor, tipo, range) =>
      addHeld(
        () => update(registerId(emisor, tipo), (s) => registerIn(s, range, account), true),
        () => update(ledgerId(account, emisor, tipo), (s) => addRange(s, range), true),
      ),
    ranges: (account, emisor, tipo) => update(ledgerId(account, emisor, tipo), summary, false),
    cafOf: (account, emisor, tipo, folio) => update(ledgerId(account, emisor, tipo), (s) => cafIn(s, folio), false),
    allocate: (account, emisor, tipo, count, hold, today) =>
      update(ledgerId(account, emisor, tipo), (s) => allocateIn(s, count, hold, today), true),
    claim: (account, emisor, tipo, folios, hold, today) =>
      update(ledgerId(account, emisor, tipo), (s) => claimIn(s, folios, hold, today), true),
    settle: (account, emisor, tipo, hold) => update(ledgerId(account, emisor, tipo), (s) => settleIn(s, hold), true),
    release: (account, emisor, tipo, hold) => update(ledgerId(account, emisor, tipo), (s) => releaseIn(s, hold), true),
    void: (account, emisor, tipo, desde, hasta) => update(ledgerId(account, emisor, tipo), (s) => voidIn(s, desde, hasta), true),
    setThreshold: (account, emisor, tipo, umbral) => update(ledgerId(account, emisor, tipo), (s) => setUmbralIn(s, umbral), true),
    threshold: (account, emisor, tipo) => update(ledgerId(account, emisor, tipo), umbralIn, false),
  };
}
