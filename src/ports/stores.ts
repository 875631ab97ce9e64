// Interfaces only: the stores the app keeps its state in (tokens, quota, settings, idempotency records,
// the folio ledger, the cache and SII sessions). Adapters live in src/adapters/<runtime>/.
import type { Plan, Scope } from "./access.ts";

/** A stored API token. The secret itself is never stored: only its SHA-256 hash. */
export interface TokenRecord {
  id: string;
  name: string;
  account: string;
  scopes: Scope[];
  plan: Plan;
  blocked: boolean;
  created_at: string;
  token_hash: string;
  /** Last characters of the secret, so an operator can tell tokens apart without seeing them. */
  hint: string;
}

export interface TokenStore {
  /** Creates or replaces the record with this id. */
  put(record: TokenRecord): Promise<void>;
  getById(id: string): Promise<TokenRecord | null>;
  getByHash(tokenHash: string): Promise<TokenRecord | null>;
  list(): Promise<TokenRecord[]>;
  /** Returns false when there was no such token. */
  delete(id: string): Promise<boolean>;
}

export interface QuotaWindow {
  used: number;
  limit: number;
  /** Unix seconds when this window starts again from zero. */
  resets_at: number;
}

export interface QuotaState {
  daily: QuotaWindow;
  monthly: QuotaWindow;
}

export interface QuotaDecision extends QuotaState {
  allowed: boolean;
}

/**
 * Units per token in a UTC day and a UTC month. `consume` is atomic: it adds `units` to both
 * windows only when both stay within the plan, so concurrent calls never overshoot.
 */
export interface QuotaStore {
  consume(tokenId: string, units: number, plan: Plan, now: Date): Promise<QuotaDecision>;
  /** Gives back units consumed at `consumedAt` (never below zero). */
  refund(tokenId: string, units: number, consumedAt: Date): Promise<void>;
  peek(tokenId: string, plan: Plan, now: Date): Promise<QuotaState>;
}

/** Small JSON documents per account (proxy settings and the like). */
export interface SettingsStore {
  get<T = unknown>(account: string, key: string): Promise<T | null>;
  put(account: string, key: string, value: unknown): Promise<void>;
  delete(account: string, key: string): Promise<void>;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** Response body, base64; the gateway hands adapters a sealed box here (headers empty), never the answer itself. */
  body: string;
}

export type IdempotencyBegin =
  | { state: "started" }
  | { state: "in_progress" }
  | { state: "completed"; response: StoredResponse }
  | { state: "conflict" }
  /** A new key while the account already holds `maxStored` live answers; `freesAt` (ms epoch): when one expires. */
  | { state: "full"; stored: number; freesAt: number };

/**
 * Records of `Idempotency-Key` use, per account. `begin` is atomic: of two concurrent calls with
 * the same key exactly one gets `started`. A record whose fingerprint differs is a `conflict`.
 * An in-progress record is held by one attempt (`attempt`: a random id per attempt); older than
 * `leaseMs` it is taken over by the next attempt to begin (its holder died, or is slow: its answer
 * is then refused, as `complete` answers false for it). A completed record lives `ttlMs` after
 * completion. A key with no live record starts only while the account holds fewer than `maxStored`
 * live completed answers (else `full`); replays and conflicts are answered whatever the count.
 * Expired records are purged in bounded batches, never all on one request.
 */
export interface IdempotencyStore {
  begin(
    account: string,
    key: string,
    fingerprint: string,
    attempt: string,
    now: Date,
    leaseMs: number,
    maxStored: number,
  ): Promise<IdempotencyBegin>;
  /**
   * Keeps `response` as the key's answer, atomically, only while the record is in progress under
   * `attempt`; false when it is not (another attempt took it over, or it was completed or dropped).
   */
  complete(
    account: string,
    key: string,
    fingerprint: string,
    attempt: string,
    response: StoredResponse,
    now: Date,
    ttlMs: number,
  ): Promise<boolean>;
  /** Drops the record, only while it is in progress under `attempt`, so the key can be tried again (nothing happened upstream). */
  abandon(account: string, key: string, fingerprint: string, attempt: string): Promise<void>;
  /** How many completed answers the account holds that have not expired at `now` (what `maxStored` caps). */
  stored(account: string, now: Date): Promise<number>;
}

/** A CAF range as the ledger holds it: the file itself only sealed (it carries the range's private key). */
export interface FolioRangeRecord {
  desde: number;
  hasta: number;
  /** The CAF's authorization date (DA/FA), YYYY-MM-DD. */
  autorizado: string;
  /** Last day its folios may be used (YYYY-MM-DD), or null when the type's CAFs do not expire. */
  vence: string | null;
  /** The CAF file sealed with SECRET_KEY by the gateway; adapters store the box as given. */
  caf: string;
}

/** A held range with its counts (never its file). */
export interface FolioRangeState {
  desde: number;
  hasta: number;
  autorizado: string;
  vence: string | null;
  usados: number;
  /** Annulled at the SII. */
  anulados: number;
  /** Void too, by the gateway: the attempt holding them stopped without saying whether an answer left. */
  sin_respuesta: number;
  disponibles: number;
  /** Its lowest free folio, or null. */
  siguiente: number | null;
}

export type FolioAddResult =
  | { state: "added"; rangos: FolioRangeState[] }
  /** The new range shares folios with one already held (`elsewhere`: by another account): nothing was added. */
  | { state: "overlap"; desde: number; hasta: number; elsewhere: boolean };

/** Another attempt holds the folios of this request (its lease runs until `until`, ms). */
type FolioBusy = { state: "busy"; until: number };
/** The hold's id names an allocation of another request. */
type FolioConflict = { state: "conflict" };

export type FolioAllocation =
  /** `replayed`: the folios a former attempt at the same request got, now held by this one. */
  | { state: "allocated"; folios: number[]; replayed: boolean }
  /** Fewer than `count` free folios: none were taken. */
  | { state: "exhausted"; disponibles: number }
  | FolioBusy
  | FolioConflict;

export type FolioClaim =
  /** `replayed`: the folios a former attempt at the same request got, now held by this one. */
  | { state: "claimed"; folios: number[]; replayed: boolean }
  /** `folio` is in no range held, in an expired one, annulled or already used: none were taken. */
  | { state: "unavailable"; folio: number; reason: "outside" | "expired" | "void" | "used" }
  | FolioBusy
  | FolioConflict;

/**
 * Who takes folios, and for how long. Every allocation is held by one attempt until it settles (an answer
 * holding the folios is about to be produced: they are used for good) or gives them back (no answer was or can
 * be produced). A pending hold whose lease ran out may be taken over by a new attempt at the same request (same
 * `id` and `print`); without a key nobody can come back for it, and its folios turn void (`sin_respuesta`).
 */
export interface FolioHold {
  /** The allocation's name in the ledger: the request's Idempotency-Key, or the attempt's own random id. */
  id: string;
  /** The request's keyed fingerprint: the same id with another request is a conflict. */
  print: string;
  /** This attempt: only the holder settles or gives back. */
  owner: string;
  /** True when `id` is the caller's key, so a retry may come back for the folios. */
  keyed: boolean;
  /** The moment of the call (ms since the epoch), from the gateway's clock. */
  now: number;
  /** How long the hold lasts without settling before another attempt may take it over (or it is voided). */
  leaseMs: number;
}

/**
 * Per account, issuer and type: the CAF ranges an account holds and which of their folios are used or
 * void. `allocate` is atomic: the lowest free folios (consecutive where the free ones are), never
 * handed out twice, also under concurrent calls from other isolates or processes. The invariant every
 * adapter keeps: a folio is free, held by one attempt, in an answer produced, or void; a folio that was
 * or can be in an answer is never free again. `void` records folios annulled at the SII (never handed out).
 * A CAF range is held by one account only, whichever account holds it for the issuer and type.
 */
export interface FolioLedgerStore {
  add(account: string, emisor: string, tipo: number, range: FolioRangeRecord): Promise<FolioAddResult>;
  /** The ranges held, lowest first; empty when the account holds none of this issuer and type. */
  ranges(account: string, emisor: string, tipo: number): Promise<FolioRangeState[]>;
  /** The sealed CAF file of the range holding `folio`, or null. */
  cafOf(account: string, emisor: string, tipo: number, folio: number): Promise<string | null>;
  /** `today` (YYYY-MM-DD): ranges expired by then (`vence` before it) give no folios. */
  allocate(account: string, emisor: string, tipo: number, count: number, hold: FolioHold, today?: string): Promise<FolioAllocation>;
  /** Takes the named folios (all free in ranges usable on `today`) or none; held as `allocate` holds. */
  claim(account: string, emisor: string, tipo: number, folios: number[], hold: FolioHold, today?: string): Promise<FolioClaim>;
  /** Marks what `hold` holds as answered; false when it holds nothing any more (then its answer must not be produced). */
  settle(account: string, emisor: string, tipo: number, hold: FolioHold): Promise<boolean>;
  /** Gives back what `hold` holds, only while it is pending and held by it; answers the folios freed. */
  release(account: string, emisor: string, tipo: number, hold: FolioHold): Promise<number[]>;
  /** Records `desde`–`hasta` (within held ranges) as void; answers how many folios became void. */
  void(account: string, emisor: string, tipo: number, desde: number, hasta: number): Promise<number>;
  /** Sets the low-folio threshold of this issuer and type (null removes it), kept with the ledger; answers it. */
  setThreshold(account: string, emisor: string, tipo: number, umbral: number | null): Promise<number | null>;
  /** The low-folio threshold set, or null. */
  threshold(account: string, emisor: string, tipo: number): Promise<number | null>;
}

/**
 * Shared cache for what the SII publishes and never changes (indicators, catalogues). Values are
 * strings (JSON); without `ttlMs` an entry is kept for good.
 */
export interface CacheStore {
  get(key: string, now: Date): Promise<string | null>;
  put(key: string, value: string, now: Date, ttlMs?: number): Promise<void>;
}

/**
 * Cached SII web sessions (sealed cookie jars) and the pacing of calls per taxpayer. Entries
 * expire by themselves; `reserve` hands out call slots at least `intervalMs` apart per key.
 * Keys start with the taxpayer's RUT and "|", so adapters may keep one taxpayer's state together.
 */
export interface SessionStore {
  get(key: string, now: Date): Promise<string | null>;
  put(key: string, sealed: string, ttlMs: number, now: Date): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Reserves the next call slot for `key`; returns how many ms to wait before using it. A slot more
   * than `maxWaitMs` away is not reserved (the answer, above `maxWaitMs`, says how far it is).
   */
  reserve(key: string, intervalMs: number, now: Date, maxWaitMs?: number): Promise<number>;
}
