// The Workers runtime's jobs: a Durable Object per account (`idFromName(account)`) holding that account's
// jobs, events and result pieces in its own SQLite (src/adapters/sql-jobs.ts), and running them from its
// alarm (src/services/job-runner.ts). Invariants: the object holds one account's jobs only (the first create
// names it; another account's call throws); every RPC method's SQL work is synchronous, so no two
// interleave; and whenever a job is due (or a result piece expires, for the round to erase it), an alarm
// is set no later than it, give or take the 2 ms two clock reads may differ by (set after each write that
// can bring work earlier, reset after each round even one that threw; the cron's `rearm` covers a lost one).
// Entry code because the alarm runs the runner; worker.ts gives it the Worker's deps (AccountJobs).

import { DurableObject } from "cloudflare:workers";
import { type AccountJobsRpc, durableSqlEngine, registerJobAccount } from "../adapters/cloudflare/durable-jobs.ts";
import { JOBS_SCHEMA, type SqlJobs, sqlJobs } from "../adapters/sql-jobs.ts";
import { consoleLogger, systemClock } from "../config.ts";
import type { Clock, Deps } from "../ports/deps.ts";
import type { EventType, JobQueue, JobRecord, JobState, JobStore, JobUpdate, ListOptions, NewEvent } from "../ports/jobs.ts";
import { runDueJobs } from "../services/job-runner.ts";

/** What the object needs of the Worker's bindings: the registry of accounts with live jobs lives in SETTINGS. */
export interface AccountJobsEnv {
  SETTINGS: KVNamespace;
}

/**
 * The registry key outlives the account's last job by this much (real time): the cron, every 5 minutes,
 * has ample time to re-arm an object whose alarm was lost before that job's life ends.
 */
const REGISTRY_MARGIN_MS = 24 * 3600_000;
/** A create rewrites the key only when it would lapse sooner than this after the new job ends: at most one KV write per account every 12 h. */
const REGISTRY_SLACK_MS = 12 * 3600_000;

const OWNER_SCHEMA =
  "CREATE TABLE IF NOT EXISTS account_owner (id INTEGER PRIMARY KEY CHECK (id = 1), account TEXT NOT NULL, registered_until INTEGER NOT NULL)";

/** How far apart two conversions of one due time may land (ms): `realTime` reads the real clock and the gateway's apart. */
const CLOCK_READ_SLACK_MS = 2;

/** `at` on the gateway's clock (the sandbox's may run ahead) as real time, what an alarm is set in. */
const realTime = (at: number, clock: Clock) => Date.now() + (at - clock.now().getTime());

/** An account's jobs object; `deps` is the Worker's (worker.ts), kept out of here so the two files do not import each other. */
export abstract class AccountJobsObject<Env extends AccountJobsEnv> extends DurableObject<Env> implements AccountJobsRpc {
  private readonly jobs: SqlJobs;
  /** The runner's queue: this object's own jobs, nothing else. */
  private readonly queue: JobQueue;

  protected abstract deps(): Promise<Deps>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    for (const statement of [...JOBS_SCHEMA, OWNER_SCHEMA]) ctx.storage.sql.exec(statement);
    const jobs = sqlJobs(durableSqlEngine(ctx.storage));
    this.jobs = jobs;
    this.queue = {
      lease: async (now, leaseMs, limit) => jobs.lease(now, leaseMs, limit),
      finish: async (job, update, events, now) => jobs.finish(job, update, events, now),
      nextDue: async () => jobs.nextDue(),
    };
  }

  /** This object's JobStore for its own alarm's steps: the same methods as its RPC, called in place. */
  private ownStore(): JobStore {
    return {
      create: (job, maxLive) => this.create(job, maxLive),
      get: async (account, id) => this.get(account, id),
      list: async (account, options) => this.list(account, options),
      change: (account, id, from, update, events, now) => this.change(account, id, [...from], update, events, now),
      events: async (account, options, now) => this.events(account, options, now),
      event: async (account, id, now) => this.event(account, id, now),
      live: async (account, prefix) => this.live(account, prefix),
      wake: (account, prefix, now) => this.wake(account, prefix, now),
      putResultPiece: (account, id, attempt, index, sealed, expires) => this.putResultPiece(account, id, attempt, index, sealed, expires),
      resultPiece: async (account, id, attempt, index, now) => this.resultPiece(account, id, attempt, index, now),
    };
  }

  private owner(): { account: string; registered_until: number } | undefined {
    return this.ctx.storage.sql
      .exec<{ account: string; registered_until: number }>("SELECT account, registered_until FROM account_owner WHERE id = 1")
      .toArray()[0];
  }

  /** Throws when the object is another account's; `claim`: a first create names the object (ctx.id.name is not always there). */
  private own(account: string, claim = false): void {
    const owner = this.owner();
    if (owner && owner.account !== account) throw new Error(`this jobs object holds another account's jobs, not ${account}'s`);
    if (!owner && claim) this.ctx.storage.sql.exec("INSERT INTO account_owner (id, account, registered_until) VALUES (1, ?, 0)", account);
  }

  /**
   * After a write: the alarm moves to the next due job when that is earlier than the one set (or none is),
   * and goes when nothing is due. The alarm is read first, so the next due time read and the write that
   * follows it are one synchronous step: a write in between cannot leave a stale time behind.
   */
  private async arm(): Promise<void> {
    const { clock } = await this.deps();
    const set = await this.ctx.storage.getAlarm();
    const next = this.jobs.nextDue();
    if (next === null) {
      if (set !== null) await this.ctx.storage.deleteAlarm();
      return;
    }
    const at = realTime(next, clock);
    // The two clocks are read apart, so the same due time converts a millisecond either way from one write to
    // the next: an alarm that close is left as it is (it was set for that very time).
    if (set === null || at < set - CLOCK_READ_SLACK_MS) await this.ctx.storage.setAlarm(at);
  }

  /**
   * Notes the account in the cron's registry until a while after `job` ends. A failed write is only
   * logged: the job is written and its alarm set; the registry is the backstop, and the next create retries.
   */
  private async register(job: JobRecord): Promise<void> {
    const { clock } = await this.deps();
    const ends = realTime(job.expires, clock);
    if ((this.owner()?.registered_until ?? 0) >= ends + REGISTRY_SLACK_MS) return;
    const until = ends + REGISTRY_MARGIN_MS;
    // A job whose life is over already needs no re-arm (and KV refuses an expiration under a minute away).
    if (until <= Date.now() + 60_000) return;
    try {
      await registerJobAccount(this.env.SETTINGS, job.account, until);
      this.ctx.storage.sql.exec("UPDATE account_owner SET registered_until = ? WHERE id = 1", until);
    } catch (err) {
      consoleLogger.log({ level: "warn", msg: "job account not registered", error: err instanceof Error ? err.message : String(err) });
    }
  }

  async create(job: JobRecord, maxLive: number) {
    this.own(job.account, true);
    const created = this.jobs.create(job, maxLive);
    if (created.state === "created") {
      await this.arm();
      await this.register(job);
    }
    return created;
  }

  get(account: string, id: string) {
    this.own(account);
    return this.jobs.get(account, id);
  }

  list(account: string, options: ListOptions) {
    this.own(account);
    return this.jobs.list(account, options);
  }

  async change(account: string, id: string, from: JobState[], update: JobUpdate, events: NewEvent[], now: number) {
    this.own(account);
    const changed = this.jobs.change(account, id, from, update, events, now);
    if (changed.state === "changed") await this.arm();
    return changed;
  }

  events(account: string, options: { after: number; type?: EventType; limit: number }, now: number) {
    this.own(account);
    return this.jobs.events(account, options, now);
  }

  event(account: string, id: string, now: number) {
    this.own(account);
    return this.jobs.event(account, id, now);
  }

  live(account: string, subjectPrefix: string) {
    this.own(account);
    return this.jobs.live(account, subjectPrefix);
  }

  async wake(account: string, subjectPrefix: string, now: number) {
    this.own(account);
    const woken = this.jobs.wake(account, subjectPrefix, now);
    if (woken) await this.arm();
    return woken;
  }

  async putResultPiece(account: string, id: string, attempt: number, index: number, sealed: string, expires: number) {
    this.own(account);
    this.jobs.putResultPiece(account, id, attempt, index, sealed, expires);
    // Its expiry is a due time (the round erases it): an alarm later than that, or none, moves to it.
    await this.arm();
  }

  resultPiece(account: string, id: string, attempt: number, index: number, now: number) {
    this.own(account);
    return this.jobs.resultPiece(account, id, attempt, index, now);
  }

  lease(now: number, leaseMs: number, limit: number) {
    return this.jobs.lease(now, leaseMs, limit);
  }

  async finish(job: JobRecord, update: JobUpdate, events: NewEvent[], now: number) {
    this.own(job.account);
    const written = this.jobs.finish(job, update, events, now);
    if (written) await this.arm();
    return written;
  }

  nextDue() {
    return this.jobs.nextDue();
  }

  async rearm(): Promise<void> {
    // Nothing due: one read, and the alarm is left as it is.
    if (this.jobs.nextDue() === null) return;
    await this.arm();
  }

  /**
   * One round of the runner on this object's jobs. Whatever happens, the alarm is set again at the next
   * due job (a lease of a round that died counts: its job is due when the lease runs out); a round that
   * throws is also retried by the platform.
   */
  override async alarm(): Promise<void> {
    let clock: Clock = systemClock;
    try {
      const deps = await this.deps();
      clock = deps.clock;
      // A step that reads or wakes the account's jobs (a webhook delivery reads the feed) reads this object's own, not over RPC to itself.
      await runDueJobs(this.queue, { ...deps, jobs: this.ownStore() });
    } catch (err) {
      consoleLogger.log({ level: "error", msg: "job round failed", error: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      const next = this.jobs.nextDue();
      if (next === null) await this.ctx.storage.deleteAlarm();
      else await this.ctx.storage.setAlarm(realTime(next, clock));
    }
  }
}
