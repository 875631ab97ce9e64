// Interfaces only: work that outlives a request (jobs) and what it saw (events), per account.
// Adapters: src/adapters/sql-jobs.ts (SQLite on Node and in a Durable Object per account) and
// src/adapters/lambda/dynamodb-jobs.ts. The runner (src/services/job-runner.ts) leases due jobs, runs one step of
// each and finishes it; routes create, read, cancel and resume them.

/** What a job does. */
export type JobKind = "seguimiento_envio" | "vigilancia_folios" | "entrega_webhook" | "descarga_rcv";

/**
 * pendiente: runs again at `due`. credenciales_requeridas: the SII no longer honours what the job had;
 * it waits for `resume`. completado: the SII gave its verdict. fallido: it ended without one (its life
 * ran out, or the SII refused it for good). cancelado: the account cancelled it.
 */
export type JobState = "pendiente" | "credenciales_requeridas" | "completado" | "fallido" | "cancelado";
export const JOB_STATES = [
  "pendiente",
  "credenciales_requeridas",
  "completado",
  "fallido",
  "cancelado",
] as const satisfies readonly JobState[];
/** States a job can leave: at most one job per account and subject is in one of them. */
export const LIVE_JOB_STATES: readonly JobState[] = ["pendiente", "credenciales_requeridas"];

export type EventType =
  | "dte_envio.processed"
  | "dte_envio.rejected"
  | "folios.low"
  | "folios.expiring"
  | "rcv_download.ready"
  | "rcv_download.failed"
  | "job.credentials_required"
  | "job.failed"
  | "webhook.test"
  | "webhook.endpoint_disabled";
export const EVENT_TYPES = [
  "dte_envio.processed",
  "dte_envio.rejected",
  "folios.low",
  "folios.expiring",
  "rcv_download.ready",
  "rcv_download.failed",
  "job.credentials_required",
  "job.failed",
  "webhook.test",
  "webhook.endpoint_disabled",
] as const satisfies readonly EventType[];

export interface JobRecord {
  /** `job_` and 24 random letters and digits. */
  id: string;
  account: string;
  kind: JobKind;
  /** What the job is about (for a submission: ambiente, service, issuer and track id): one live job per account and subject. */
  subject: string;
  estado: JobState;
  /** The kind's input (issuer, track id, …): never credentials, XML or rows. */
  input: Record<string, unknown>;
  /** What the last step saw, as the API shows it; null before the first. */
  progress: Record<string, unknown> | null;
  /** What the SII gave the call that started it (a token or session), sealed with SECRET_KEY; null when it has none. */
  sealed: string | null;
  /** The API token whose quota each SII call the job makes is charged to. */
  token_id: string;
  /** ms since the epoch, from the gateway's clock. */
  created_at: number;
  updated_at: number;
  /** When the job runs next (ms); null when it does not run by itself (waiting for credentials, or ended). */
  due: number | null;
  /** When it gives up (ms). */
  expires: number;
  /** Steps run (SII calls made). */
  runs: number;
  /** The last step's failure in words (an SII outage, the quota), or null. */
  error: string | null;
  /** Until when the runner that leased it has it (ms); 0 when nobody has. */
  lease_until: number;
  /** Raised by every write: a finish or change names the version it read, and loses to any write since. */
  version: number;
}

export interface ListOptions {
  estado?: JobState;
  before?: string;
  exceptKind?: JobKind;
  limit: number;
}

/** What a step or a change sets; `input` only when given (a webhook endpoint's PATCH). */
export type JobUpdate = Pick<JobRecord, "estado" | "progress" | "sealed" | "due" | "runs" | "error"> & { input?: Record<string, unknown> };

/** What a job's step decided: the job's next state and the events it saw, written together by `finish`. */
export interface StepResult {
  update: JobUpdate;
  events: NewEvent[];
}

export interface NewEvent {
  type: EventType;
  /** Ids and outcomes only; the store adds `job_id`. */
  data: Record<string, unknown>;
}

export interface EventRecord {
  /** `evt_` and 24 random letters and digits. */
  id: string;
  account: string;
  type: EventType;
  /** ms since the epoch. */
  created_at: number;
  /** 1, 2, 3 … per account, in the order the events were written: a client's cursor (`after`). */
  sequence: number;
  data: Record<string, unknown> & { job_id: string };
}

export type JobCreation =
  | { state: "created"; job: JobRecord }
  /** A live job of the account already has this subject: it is answered, nothing is created. */
  | { state: "existing"; job: JobRecord }
  /** The account already has `max` live jobs. */
  | { state: "full"; max: number };

export type JobChange =
  | { state: "changed"; job: JobRecord; events: EventRecord[] }
  | { state: "not_found" }
  /** The job is not in one of the states the change starts from (it is answered as it is). */
  | { state: "refused"; job: JobRecord };

/**
 * The invariants every adapter keeps, whatever runs at once, retries or dies:
 * - a job is run by one runner at a time: `lease` hands a due job to one caller until `lease_until`, and only
 *   after that to another (the first died or hung);
 * - a step's result is written with its events in one atomic write, or not at all: `finish` (and `change`)
 *   writes only when the job's `version` is still the one it was handed, so a runner whose lease was taken
 *   over, or a job cancelled meanwhile, writes nothing; an event is never written without its state change,
 *   nor a state change without its events;
 * - an event, once written, keeps its id and its `sequence`; sequences grow by one per event per account.
 * Nothing is deleted but expired: events after EVENT_KEPT_MS, ended jobs after JOB_KEPT_MS.
 */
export interface JobStore {
  /** Adds `job` unless a live job of its account has its subject, or the account has `maxLive` live jobs. */
  create(job: JobRecord, maxLive: number): Promise<JobCreation>;
  get(account: string, id: string): Promise<JobRecord | null>;
  /**
   * The account's jobs, newest first; `before`: only jobs created before that job (a page's cursor);
   * `exceptKind`: none of that kind (the jobs list leaves out the webhook endpoints' delivery jobs).
   */
  list(account: string, options: ListOptions): Promise<JobRecord[]>;
  /** Changes a job from outside a run (cancel, resume) when its state is one of `from`; any lease is dropped. */
  change(account: string, id: string, from: readonly JobState[], update: JobUpdate, events: NewEvent[], now: number): Promise<JobChange>;
  /** Events with a sequence above `after`, lowest first, of `type` when given; none older than EVENT_KEPT_MS. */
  events(account: string, options: { after: number; type?: EventType; limit: number }, now: number): Promise<EventRecord[]>;
  /** One event of the account by its id, or null (unknown, another account's, or older than EVENT_KEPT_MS). */
  event(account: string, id: string, now: number): Promise<EventRecord | null>;
  /** The account's live jobs whose subject begins with `subjectPrefix` (at most MAX_LIVE_JOBS). */
  live(account: string, subjectPrefix: string): Promise<JobRecord[]>;
  /**
   * Brings forward to `now` every `pendiente` job of the account whose subject begins with `subjectPrefix`,
   * that nobody holds and whose `due` is later (each a write: its version is raised); answers how many.
   * A held job is left alone: its runner's write decides what comes next.
   */
  wake(account: string, subjectPrefix: string, now: number): Promise<number>;
  /**
   * Stores piece `index` (0, 1, …) of job `id`'s result (an RCV download's documents), sealed by the caller, until
   * `expires` (ms). `attempt` names the step that wrote it (the version it was leased at): a step that died halfway
   * leaves pieces that no finished job names, and they expire like the rest. Writing a piece again replaces it.
   * A piece is at most RESULT_PIECE_MAX_CHARS long.
   */
  putResultPiece(account: string, id: string, attempt: number, index: number, sealed: string, expires: number): Promise<void>;
  /**
   * That piece, or null: never written, another account's, or expired (`expires` <= `now`): an expired piece is never
   * answered, and the store erases it by itself (SQLite: the runner's rounds, which its next-due time wakes for it;
   * DynamoDB: the table's TTL).
   */
  resultPiece(account: string, id: string, attempt: number, index: number, now: number): Promise<string | null>;
}

/**
 * What the runner (src/services/job-runner.ts) takes its work from: on Node and Lambda the whole store, on Workers an
 * account's Durable Object (its own jobs only, from its alarm).
 */
export interface JobQueue {
  /**
   * Hands out up to `limit` jobs due by `now` that nobody holds (their lease ran out), oldest due first,
   * each with its version raised and `lease_until` = now + leaseMs.
   */
  lease(now: number, leaseMs: number, limit: number): Promise<JobRecord[]>;
  /**
   * Writes `update` and `events` for a leased job, releasing it, only while its version is `job.version`
   * (the leased one); answers the events written, or null when nothing was written.
   */
  finish(job: JobRecord, update: JobUpdate, events: NewEvent[], now: number): Promise<EventRecord[] | null>;
  /**
   * The earliest `due` of a job nobody holds, the end of the earliest lease, or (where the store erases results in its
   * rounds) the earliest expiry of a stored result piece: when a runner should look next (ms), or null.
   */
  nextDue(): Promise<number | null>;
}

/** Events are listed for 30 days. */
export const EVENT_KEPT_MS = 30 * 24 * 60 * 60 * 1000;
/** An ended job is kept (and answered) 30 days after it ended. */
export const JOB_KEPT_MS = 30 * 24 * 60 * 60 * 1000;
/** The longest piece of a job's result a store keeps: under DynamoDB's item limit (400 KB) with its keys. */
export const RESULT_PIECE_MAX_CHARS = 400_000;
/** Live jobs an account may hold at once: bounds what one account keeps the runners busy with. */
export const MAX_LIVE_JOBS = 1000;
