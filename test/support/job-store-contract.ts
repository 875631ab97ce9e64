// What every job store keeps (JobStore and JobQueue, src/ports/jobs.ts), as tests any adapter runs:
// `jobStoreContract("sqlite", () => store)` in a describe block. The property at the end states the
// invariant in words and checks it under random interleavings of runners, crashes and cancels.
import fc from "fast-check";
import { expect, it } from "vitest";
import { randomName } from "../../src/lib/random-name.ts";
import { type JobQueue, type JobRecord, type JobStore, type JobUpdate, RESULT_PIECE_MAX_CHARS } from "../../src/ports/jobs.ts";

export type JobStoreUnderTest = JobStore & JobQueue;

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

export function newJob(account: string, subject: string, at = T0, fields: Partial<JobRecord> = {}): JobRecord {
  return {
    id: randomName("job"),
    account,
    kind: "seguimiento_envio",
    subject,
    estado: "pendiente",
    input: { emisor: "76192083-9", track_id: subject },
    progress: null,
    sealed: null,
    token_id: "tok_test",
    created_at: at,
    updated_at: at,
    due: at,
    expires: at + 72 * 3600_000,
    runs: 0,
    error: null,
    lease_until: 0,
    version: 1,
    ...fields,
  };
}

const pending = (job: JobRecord, due: number, runs = job.runs + 1): JobUpdate => ({
  estado: "pendiente",
  progress: { estado: "REC" },
  sealed: job.sealed,
  due,
  runs,
  error: null,
});

/** The update of a step that ends the job with the SII's verdict. */
export const done = (job: JobRecord): JobUpdate => ({
  estado: "completado",
  progress: { estado: "EPR" },
  sealed: null,
  due: null,
  runs: job.runs + 1,
  error: null,
});

/**
 * How an adapter erases expired result pieces: in the runner's rounds (`lease`, woken by `nextDue`: SQLite,
 * memory), or by a TTL (DynamoDB), whose attribute (unix seconds) of every stored piece `expiresAt` reads raw
 * from the latest store made.
 */
export type PieceErasure = { by: "rounds" } | { by: "ttl"; expiresAt: () => Promise<number[]> };

/**
 * `make` gives a fresh, empty store. `oneAccount`: the store holds one account's jobs only (a Durable
 * Object), so the tests that need two accounts are left to the adapter's own file. `pieces`: how it erases
 * expired result pieces (in rounds unless told).
 */
export function jobStoreContract(
  make: () => Promise<JobStoreUnderTest> | JobStoreUnderTest,
  options: { oneAccount?: boolean; pieces?: PieceErasure } = {},
) {
  const other = options.oneAccount ? null : "acct_b";
  const erasure = options.pieces ?? { by: "rounds" };

  it("creates a job once per live subject, and no more live jobs than the account may hold", async () => {
    const store = await make();
    const first = newJob("acct_a", "s1");
    expect(await store.create(first, 2)).toEqual({ state: "created", job: first });
    const again = await store.create(newJob("acct_a", "s1"), 2);
    expect(again.state).toBe("existing");
    expect(again.state === "existing" && again.job.id).toBe(first.id);
    expect((await store.create(newJob("acct_a", "s2"), 2)).state).toBe("created");
    expect(await store.create(newJob("acct_a", "s3"), 2)).toEqual({ state: "full", max: 2 });
    expect(await store.get("acct_a", first.id)).toEqual(first);
  });

  it("a subject whose job ended takes a new job", async () => {
    const store = await make();
    const first = newJob("acct_a", "s1");
    await store.create(first, 10);
    const cancel = { estado: "cancelado", progress: null, sealed: null, due: null, runs: 0, error: null } as const;
    expect((await store.change("acct_a", first.id, ["pendiente"], cancel, [], T0)).state).toBe("changed");
    expect((await store.create(newJob("acct_a", "s1"), 10)).state).toBe("created");
  });

  if (other) {
    it("another account's jobs and events are not there for it", async () => {
      const store = await make();
      const job = newJob("acct_a", "s1");
      await store.create(job, 10);
      expect(await store.get(other, job.id)).toBeNull();
      expect(await store.list(other, { limit: 10 })).toEqual([]);
      const update = { estado: "cancelado", progress: null, sealed: null, due: null, runs: 0, error: null } as const;
      expect(await store.change(other, job.id, ["pendiente"], update, [], T0)).toEqual({ state: "not_found" });
      const [leased] = await store.lease(T0, 60_000, 10);
      await store.finish(leased!, done(leased!), [{ type: "dte_envio.processed", data: { track_id: "s1" } }], T0);
      expect(await store.events(other, { after: 0, limit: 10 }, T0)).toEqual([]);
      // The same subject in another account is another job.
      expect((await store.create(newJob(other, "s1"), 10)).state).toBe("created");
    });
  }

  it("lists newest first, page by page, and by state", async () => {
    const store = await make();
    const jobs = [0, 1, 2, 3, 4].map((i) => newJob("acct_a", `s${i}`, T0 + i * 1000));
    for (const job of jobs) await store.create(job, 10);
    const first = await store.list("acct_a", { limit: 2 });
    expect(first.map((j) => j.id)).toEqual([jobs[4]!.id, jobs[3]!.id]);
    const second = await store.list("acct_a", { limit: 2, before: first[1]!.id });
    expect(second.map((j) => j.id)).toEqual([jobs[2]!.id, jobs[1]!.id]);
    const update = { estado: "cancelado", progress: null, sealed: null, due: null, runs: 0, error: null } as const;
    await store.change("acct_a", jobs[1]!.id, ["pendiente"], update, [], T0);
    expect((await store.list("acct_a", { limit: 10, estado: "cancelado" })).map((j) => j.id)).toEqual([jobs[1]!.id]);
    expect(await store.list("acct_a", { limit: 10, before: "job_aaaaaaaaaaaaaaaaaaaaaaaa" })).toEqual([]);
  });

  it("leases only what is due and free, to one runner until its lease runs out", async () => {
    const store = await make();
    const now = newJob("acct_a", "now", T0, { due: T0 });
    const later = newJob("acct_a", "later", T0, { due: T0 + 30_000 });
    await store.create(now, 10);
    await store.create(later, 10);
    expect(await store.nextDue()).toBe(T0);
    const leased = await store.lease(T0, 60_000, 10);
    expect(leased.map((j) => j.id)).toEqual([now.id]);
    expect(leased[0]!.version).toBe(now.version + 1);
    expect(leased[0]!.lease_until).toBe(T0 + 60_000);
    // Held: nobody else gets it, even once the other job is due.
    expect((await store.lease(T0 + 30_000, 60_000, 10)).map((j) => j.id)).toEqual([later.id]);
    expect(await store.nextDue()).toBe(T0 + 60_000);
    // Its holder died: once the lease ran out, another runner takes it, and the first one's finish writes nothing.
    const taken = await store.lease(T0 + 60_000, 60_000, 10);
    expect(taken.map((j) => j.id)).toEqual([now.id]);
    expect(await store.finish(leased[0]!, done(leased[0]!), [{ type: "dte_envio.processed", data: {} }], T0 + 61_000)).toBeNull();
    expect(await store.events("acct_a", { after: 0, limit: 10 }, T0 + 61_000)).toEqual([]);
    const events = await store.finish(taken[0]!, pending(taken[0]!, T0 + 200_000), [], T0 + 61_000);
    expect(events).toEqual([]);
    const after = await store.get("acct_a", now.id);
    expect(after).toMatchObject({ estado: "pendiente", due: T0 + 200_000, lease_until: 0, runs: 1, progress: { estado: "REC" } });
    // Only the other job, whose holder never finished, is handed out again.
    expect((await store.lease(T0 + 100_000, 60_000, 10)).map((j) => j.id)).toEqual([later.id]);
  });

  it("writes a step's state and its events together, numbered in order per account", async () => {
    const store = await make();
    const a = newJob("acct_a", "a");
    const b = newJob("acct_a", "b");
    await store.create(a, 10);
    await store.create(b, 10);
    const [la, lb] = await store.lease(T0, 60_000, 10);
    const first = await store.finish(la!, done(la!), [{ type: "dte_envio.processed", data: { track_id: "a" } }], T0 + 1);
    const second = await store.finish(
      lb!,
      { ...done(lb!), estado: "credenciales_requeridas" },
      [
        { type: "job.credentials_required", data: {} },
        { type: "dte_envio.rejected", data: { track_id: "b" } },
      ],
      T0 + 2,
    );
    expect(first).toEqual([
      {
        id: expect.stringMatching(/^evt_[a-z0-9]{24}$/),
        account: "acct_a",
        type: "dte_envio.processed",
        created_at: T0 + 1,
        sequence: 1,
        data: { track_id: "a", job_id: la!.id },
      },
    ]);
    expect(second!.map((e) => [e.sequence, e.type])).toEqual([
      [2, "job.credentials_required"],
      [3, "dte_envio.rejected"],
    ]);
    const all = await store.events("acct_a", { after: 0, limit: 10 }, T0 + 3);
    expect(all).toEqual([...first!, ...second!]);
    expect((await store.events("acct_a", { after: 1, limit: 1 }, T0)).map((e) => e.sequence)).toEqual([2]);
    expect((await store.events("acct_a", { after: 0, limit: 10, type: "dte_envio.rejected" }, T0)).map((e) => e.sequence)).toEqual([3]);
    // A finished job is due no more.
    expect(await store.lease(T0 + 10 ** 9, 60_000, 10)).toEqual([]);
    expect(await store.nextDue()).toBeNull();
  });

  it("a change from outside (a cancel) wins over the runner holding the job, whose finish then writes nothing", async () => {
    const store = await make();
    const job = newJob("acct_a", "s1");
    await store.create(job, 10);
    const [leased] = await store.lease(T0, 60_000, 10);
    const cancel = { estado: "cancelado", progress: leased!.progress, sealed: null, due: null, runs: leased!.runs, error: null } as const;
    const changed = await store.change("acct_a", job.id, ["pendiente", "credenciales_requeridas"], cancel, [], T0 + 5);
    expect(changed.state).toBe("changed");
    expect(changed.state === "changed" && changed.job).toMatchObject({
      estado: "cancelado",
      lease_until: 0,
      due: null,
      updated_at: T0 + 5,
    });
    expect(await store.finish(leased!, done(leased!), [{ type: "dte_envio.processed", data: {} }], T0 + 6)).toBeNull();
    expect(await store.events("acct_a", { after: 0, limit: 10 }, T0 + 6)).toEqual([]);
    // From an ended state there is no way back.
    const resume = { ...cancel, estado: "pendiente", due: T0 } as const;
    const refused = await store.change("acct_a", job.id, ["credenciales_requeridas"], resume, [], T0 + 7);
    expect(refused.state).toBe("refused");
    expect(await store.change("acct_a", "job_aaaaaaaaaaaaaaaaaaaaaaaa", ["pendiente"], cancel, [], T0)).toEqual({ state: "not_found" });
  });

  it("forgets events after 30 days, never their numbers", async () => {
    const store = await make();
    const job = newJob("acct_a", "s1");
    await store.create(job, 10);
    const [leased] = await store.lease(T0, 60_000, 10);
    await store.finish(leased!, pending(leased!, T0 + 1000), [{ type: "job.credentials_required", data: {} }], T0);
    const month = 31 * 24 * 3600_000;
    expect(await store.events("acct_a", { after: 0, limit: 10 }, T0 + month)).toEqual([]);
    const [again] = await store.lease(T0 + month, 60_000, 10);
    const written = await store.finish(again!, done(again!), [{ type: "dte_envio.processed", data: {} }], T0 + month);
    expect(written!.map((e) => e.sequence)).toEqual([2]);
  });

  it("wakes the account's live, unheld jobs of a subject prefix that are due later, each one a write", async () => {
    const store = await make();
    const later = newJob("acct_a", "webhook:1", T0, { due: T0 + 3600_000 });
    const held = newJob("acct_a", "webhook:2", T0, { due: T0 - 2000 });
    const dueAlready = newJob("acct_a", "webhook:3", T0, { due: T0 - 1000 });
    const idle = newJob("acct_a", "webhook:4", T0, { due: null });
    const otherSubject = newJob("acct_a", "s1", T0, { due: T0 + 3600_000 });
    for (const job of [later, held, dueAlready, idle, otherSubject]) await store.create(job, 10);
    const [leased] = await store.lease(T0, 60_000, 1);
    expect(leased!.id).toBe(held.id);
    const heldId = held.id;
    const before = new Map((await store.live("acct_a", "webhook:")).map((j) => [j.id, j]));
    expect(await store.wake("acct_a", "webhook:", T0 + 10)).toBe(1);
    const after = new Map((await store.live("acct_a", "webhook:")).map((j) => [j.id, j]));
    expect(after.get(later.id)).toMatchObject({ due: T0 + 10, version: before.get(later.id)!.version + 1, lease_until: 0 });
    // The held one keeps its lease and its version (its runner's finish still writes), the others their due.
    expect(after.get(heldId)).toEqual(before.get(heldId));
    expect(after.get(idle.id)!.due).toBeNull();
    expect((await store.get("acct_a", otherSubject.id))!.due).toBe(T0 + 3600_000);
    expect(after.get(dueAlready.id)).toEqual(before.get(dueAlready.id));
    expect(await store.finish(leased!, pending(leased!, T0 + 5000), [], T0 + 20)).not.toBeNull();
    // Released with a later due, it is woken now; then nothing is left to wake.
    expect(await store.wake("acct_a", "webhook:", T0 + 30)).toBe(1);
    expect(await store.wake("acct_a", "webhook:", T0 + 30)).toBe(0);
  });

  it("lists every kind but the one left out", async () => {
    const store = await make();
    const track = newJob("acct_a", "s1", T0);
    const hook = newJob("acct_a", "webhook:1", T0 + 1, { kind: "entrega_webhook" });
    const watch = newJob("acct_a", "s2", T0 + 2, { kind: "vigilancia_folios" });
    for (const job of [track, hook, watch]) await store.create(job, 10);
    expect((await store.list("acct_a", { limit: 10 })).map((j) => j.id)).toEqual([watch.id, hook.id, track.id]);
    expect((await store.list("acct_a", { limit: 1, exceptKind: "entrega_webhook", before: watch.id })).map((j) => j.id)).toEqual([
      track.id,
    ]);
  });

  it("lists the live jobs of a subject prefix, and no ended one", async () => {
    const store = await make();
    const a = newJob("acct_a", "webhook:1");
    const b = newJob("acct_a", "webhook:2");
    await store.create(a, 10);
    await store.create(b, 10);
    await store.create(newJob("acct_a", "s1"), 10);
    const cancel = { estado: "cancelado", progress: null, sealed: null, due: null, runs: 0, error: null } as const;
    await store.change("acct_a", b.id, ["pendiente"], cancel, [], T0);
    expect((await store.live("acct_a", "webhook:")).map((j) => j.id)).toEqual([a.id]);
    expect(await store.live("acct_a", "nothing:")).toEqual([]);
  });

  it("finds an event by its id within the 30 days it is kept", async () => {
    const store = await make();
    await store.create(newJob("acct_a", "s1"), 10);
    const [leased] = await store.lease(T0, 60_000, 10);
    const written = await store.finish(leased!, done(leased!), [{ type: "dte_envio.processed", data: { track_id: "s1" } }], T0);
    const [event] = written!;
    expect(await store.event("acct_a", event!.id, T0 + 1)).toEqual(event);
    expect(await store.event("acct_a", "evt_aaaaaaaaaaaaaaaaaaaaaaaa", T0 + 1)).toBeNull();
    if (other) expect(await store.event(other, event!.id, T0 + 1)).toBeNull();
    expect(await store.event("acct_a", event!.id, T0 + 31 * 24 * 3600_000)).toBeNull();
  });

  it("replaces a job's input only when a change gives one", async () => {
    const store = await make();
    const job = newJob("acct_a", "s1");
    await store.create(job, 10);
    const keep = { estado: "pendiente", progress: null, sealed: null, due: T0, runs: 0, error: null } as const;
    await store.change("acct_a", job.id, ["pendiente"], keep, [], T0);
    expect((await store.get("acct_a", job.id))!.input).toEqual(job.input);
    await store.change("acct_a", job.id, ["pendiente"], { ...keep, input: { url: "https://example.cl/" } }, [], T0);
    expect((await store.get("acct_a", job.id))!.input).toEqual({ url: "https://example.cl/" });
  });

  it("keeps a job's result piece for its account, job, attempt and index only", async () => {
    const store = await make();
    const expires = T0 + 24 * 3600_000;
    await store.putResultPiece("acct_a", "job_1", 3, 0, "sealed-0", expires);
    await store.putResultPiece("acct_a", "job_1", 3, 1, "sealed-1", expires);
    expect(await store.resultPiece("acct_a", "job_1", 3, 0, T0)).toBe("sealed-0");
    expect(await store.resultPiece("acct_a", "job_1", 3, 1, T0)).toBe("sealed-1");
    if (other) expect(await store.resultPiece(other, "job_1", 3, 0, T0)).toBeNull();
    expect(await store.resultPiece("acct_a", "job_2", 3, 0, T0)).toBeNull();
    expect(await store.resultPiece("acct_a", "job_1", 4, 0, T0)).toBeNull();
    expect(await store.resultPiece("acct_a", "job_1", 3, 2, T0)).toBeNull();
  });

  it("replaces a result piece written again, expiry too", async () => {
    const store = await make();
    const expires = T0 + 24 * 3600_000;
    await store.putResultPiece("acct_a", "job_1", 1, 0, "first", expires);
    await store.putResultPiece("acct_a", "job_1", 1, 0, "second", expires + 1000);
    expect(await store.resultPiece("acct_a", "job_1", 1, 0, T0)).toBe("second");
    expect(await store.resultPiece("acct_a", "job_1", 1, 0, expires)).toBe("second");
  });

  it("never answers a result piece past its expiry", async () => {
    const store = await make();
    const expires = T0 + 24 * 3600_000;
    await store.putResultPiece("acct_a", "job_1", 1, 0, "sealed", expires);
    expect(await store.resultPiece("acct_a", "job_1", 1, 0, expires - 1)).toBe("sealed");
    expect(await store.resultPiece("acct_a", "job_1", 1, 0, expires)).toBeNull();
    expect(await store.resultPiece("acct_a", "job_1", 1, 0, expires + 3600_000)).toBeNull();
  });

  it("keeps a result piece of the longest size whole", async () => {
    const store = await make();
    // Base64's alphabet, as a sealed piece is written.
    const sealed = "QUJD+/09".repeat(RESULT_PIECE_MAX_CHARS / 8);
    expect(sealed.length).toBe(RESULT_PIECE_MAX_CHARS);
    await store.putResultPiece("acct_a", "job_1", 1, 0, sealed, T0 + 24 * 3600_000);
    expect(await store.resultPiece("acct_a", "job_1", 1, 0, T0)).toBe(sealed);
  });

  if (erasure.by === "rounds") {
    it("erases an expired result piece in a round, whose next look is no later than its expiry", async () => {
      const store = await make();
      const expires = T0 + 24 * 3600_000;
      await store.putResultPiece("acct_a", "job_1", 1, 0, "sealed", expires);
      expect(await store.nextDue()).toBe(expires);
      // A job due earlier comes first; once it ended, the piece's expiry is next again.
      await store.create(newJob("acct_a", "s1", T0), 10);
      expect(await store.nextDue()).toBe(T0);
      const [leased] = await store.lease(T0, 60_000, 10);
      await store.finish(leased!, done(leased!), [], T0);
      expect(await store.nextDue()).toBe(expires);
      // A round before the expiry keeps it; the first one at it erases it (read at an earlier time to see it gone).
      await store.lease(expires - 1, 60_000, 10);
      expect(await store.resultPiece("acct_a", "job_1", 1, 0, expires - 1)).toBe("sealed");
      await store.lease(expires, 60_000, 10);
      expect(await store.resultPiece("acct_a", "job_1", 1, 0, expires - 1)).toBeNull();
      expect(await store.nextDue()).toBeNull();
    });
  } else {
    const { expiresAt } = erasure;
    it("leaves an expired result piece to the table's TTL, in unix seconds, not to the rounds", async () => {
      const store = await make();
      const expires = T0 + 24 * 3600_000 + 1;
      await store.putResultPiece("acct_a", "job_1", 1, 0, "sealed", expires);
      // Rounded up: the TTL never erases a piece before its expiry.
      expect(await expiresAt()).toEqual([Math.ceil(expires / 1000)]);
      expect(await store.nextDue()).toBeNull();
    });
  }

  /**
   * The invariant, in words: whatever runners lease, crash (never finish), finish late or race a cancel,
   * (1) no two runners hold one job at once, (2) a finish writes only for the runner whose lease is the
   * job's latest, (3) every event belongs to exactly one write that was accepted and the account's
   * sequences are 1…n without a gap or a repeat, and (4) a job ended stays ended; wakes in between change none of it.
   */
  it("property: one holder at a time, nothing written by a stale runner, events exactly those of accepted writes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant("create" as const), subject: fc.integer({ min: 0, max: 4 }) }),
            fc.record({ op: fc.constant("lease" as const), runner: fc.integer({ min: 0, max: 2 }) }),
            fc.record({ op: fc.constant("finish" as const), runner: fc.integer({ min: 0, max: 2 }), end: fc.boolean() }),
            fc.record({ op: fc.constant("crash" as const), runner: fc.integer({ min: 0, max: 2 }) }),
            fc.record({ op: fc.constant("cancel" as const), subject: fc.integer({ min: 0, max: 4 }) }),
            fc.record({ op: fc.constant("tick" as const), ms: fc.integer({ min: 1, max: 90_000 }) }),
            fc.record({ op: fc.constant("wake" as const) }),
          ),
          { maxLength: 40 },
        ),
        async (steps) => {
          const store = await make();
          let now = T0;
          const held = new Map<number, JobRecord[]>();
          const ids = new Map<number, string>();
          const ended = new Set<string>();
          let accepted = 0;
          for (const step of steps) {
            if (step.op === "tick") now += step.ms;
            if (step.op === "create") {
              const made = await store.create(newJob("acct_a", `s${step.subject}`, now), 100);
              if (made.state === "created") ids.set(step.subject, made.job.id);
            }
            if (step.op === "lease") {
              const leased = await store.lease(now, 60_000, 2);
              // (1): a job handed out is held by no other runner whose lease still runs.
              for (const job of leased)
                for (const [runner, jobs] of held)
                  for (const h of jobs)
                    if (h.id === job.id && h.lease_until > now) throw new Error(`runner ${runner} still holds ${job.id}`);
              held.set(step.runner, [...(held.get(step.runner) ?? []), ...leased]);
            }
            if (step.op === "crash") held.delete(step.runner);
            // A wake is a write like any other: it moves no held job, and a runner whose lease ran out before it loses.
            if (step.op === "wake") await store.wake("acct_a", "s", now);
            if (step.op === "finish") {
              const job = held.get(step.runner)?.shift();
              if (!job) continue;
              const latest = await store.get("acct_a", job.id);
              const events = step.end ? [{ type: "dte_envio.processed" as const, data: {} }] : [];
              const written = await store.finish(job, step.end ? done(job) : pending(job, now + 30_000), events, now);
              // (2): written exactly when this runner's lease is the job's latest write.
              expect(written !== null).toBe(latest!.version === job.version);
              if (written) {
                accepted += written.length;
                if (step.end) ended.add(job.id);
              }
            }
            if (step.op === "cancel") {
              const id = ids.get(step.subject);
              if (!id) continue;
              const update = { estado: "cancelado", progress: null, sealed: null, due: null, runs: 0, error: null } as const;
              const changed = await store.change("acct_a", id, ["pendiente", "credenciales_requeridas"], update, [], now);
              if (changed.state === "changed") ended.add(id);
              else expect(ended.has(id)).toBe(true);
            }
          }
          // (3) and (4).
          const events = await store.events("acct_a", { after: 0, limit: 1000 }, now);
          expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
          expect(events.length).toBe(accepted);
          expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
          for (const id of ended) expect(["completado", "cancelado"]).toContain((await store.get("acct_a", id))?.estado);
        },
      ),
      { numRuns: 60 },
    );
  });
}
