// The DynamoDB job store when its caller dies between two requests (a Lambda timed out or killed): a client
// that throws after its N-th request, for random N, stands for the dead instance, and a new store on the
// same table (another instance) carries on after it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dynamoJobStore } from "../../src/adapters/lambda/dynamodb-jobs.ts";
import { createDynamoTable, type DynamoConfig } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { type Call, dynamoClient, itemIn, type Key } from "../../src/adapters/lambda/dynamodb-wire.ts";
import type { JobRecord, JobUpdate } from "../../src/ports/jobs.ts";
import { done, newJob } from "../support/job-store-contract.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const local = localDynamoDb("jobs-crash");
const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const LEASE = 60_000;
let tables = 0;

class Crash extends Error {}

/** A store on `config` whose client dies at its `after`-th request (never, when undefined). */
function storeOn(config: DynamoConfig, after?: number) {
  const base = dynamoClient(config);
  let calls = 0;
  const call: Call = async (operation, body) => {
    if (after !== undefined && ++calls >= after) throw new Crash(`died at request ${calls}`);
    return base(operation, body);
  };
  const getItem = async (k: Key) => itemIn(await call("GetItem", { TableName: config.table, Key: k, ConsistentRead: true }), "Item");
  return dynamoJobStore(call, config.table, getItem);
}

async function freshTable(): Promise<DynamoConfig> {
  const config = { ...local.config, table: `jobs-crash-${++tables}` };
  await createDynamoTable(config);
  return config;
}

/** Runs `work` on a store that may die: whatever it did before dying stays. */
const survive = async (work: () => Promise<unknown>) => {
  try {
    await work();
  } catch (err) {
    if (!(err instanceof Crash)) throw err;
  }
};

const cancel: JobUpdate = { estado: "cancelado", progress: null, sealed: null, due: null, runs: 0, error: null };

describe("jobs on DynamoDB when the caller dies", () => {
  /**
   * The invariant, in words: wherever an instance dies in the middle of a finish, a change or a creation
   * (between any two of its requests), another instance then finds (1) every write that was accepted
   * with all its events in the feed, and no event of a write that was not; (2) the feed numbered 1…n
   * per account, each event once, in the order of each write's events; (3) a subject held only by a
   * live job, and free once its job ended; and (4) every live job that is due handed out again, once
   * the dead instance's leases ran out; each event of the feed is also found by its id.
   */
  it("property: a copy cut short is finished by the next instance, and no event is lost or numbered twice", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 45 }), async (dieAt) => {
        const config = await freshTable();
        const first = storeOn(config);
        const [a, b, c] = [newJob("acct_a", "a"), newJob("acct_a", "b"), newJob("acct_a", "c")];
        for (const job of [a, b, c]) await first.create(job, 10);
        const leased = await first.lease(T0, LEASE, 10);
        const held = (job: JobRecord) => leased.find((l) => l.id === job.id)!;
        await first.finish(held(a), done(held(a)), [{ type: "dte_envio.processed", data: { n: 1 } }], T0 + 1);

        // The instance that dies: a finish with two events, a cancel with one, a creation.
        const dying = storeOn(config, dieAt);
        const d = newJob("acct_a", "d", T0 + 2);
        await survive(async () => {
          await dying.finish(
            held(b),
            { ...done(held(b)), estado: "credenciales_requeridas" },
            [
              { type: "job.credentials_required", data: { n: 2 } },
              { type: "dte_envio.rejected", data: { n: 3 } },
            ],
            T0 + 2,
          );
          await dying.change("acct_a", c.id, ["pendiente"], cancel, [{ type: "job.failed", data: { n: 4 } }], T0 + 3);
          await dying.create(d, 10);
        });

        const next = storeOn(config);
        const now = T0 + LEASE + 1;
        const events = await next.events("acct_a", { after: 0, limit: 100 }, now);
        // (2)
        expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
        expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
        // Each one is found by its id too (a redelivery's lookup): the copy that finished it put its index.
        for (const event of events) expect(await next.event("acct_a", event.id, now)).toEqual(event);
        // (1): each job's events are there exactly when its write was accepted, in their order.
        const of = (job: JobRecord) => events.filter((e) => e.data.job_id === job.id).map((e) => e.data.n);
        const [nb, nc] = [await next.get("acct_a", b.id), await next.get("acct_a", c.id)];
        expect(of(a)).toEqual([1]);
        expect(of(b)).toEqual(nb?.estado === "credenciales_requeridas" ? [2, 3] : []);
        expect(of(c)).toEqual(nc?.estado === "cancelado" ? [4] : []);
        // b stays live either way (its subject held), c's subject is free once it was cancelled.
        expect((await next.create(newJob("acct_a", "b", now), 10)).state).toBe("existing");
        expect((await next.create(newJob("acct_a", "c", now), 10)).state).toBe(nc?.estado === "cancelado" ? "created" : "existing");
        // The creation is the subject's job, or nobody's: the subject answers it or takes a new one.
        const nd = await next.get("acct_a", d.id);
        const again = await next.create(newJob("acct_a", "d", now), 10);
        expect(again.state === "existing" ? again.job.id : null).toBe(nd ? d.id : null);
        // (4): what is live and due, and no longer held, is handed out again.
        const relet = (await next.lease(now, LEASE, 10)).map((j) => j.id);
        for (const job of [b, c, d]) if ((await next.get("acct_a", job.id))?.estado === "pendiente") expect(relet).toContain(job.id);
        // Anything written afterwards continues the numbering.
        const [later] = await next.lease(now + 10 * LEASE, LEASE, 1);
        if (later) {
          const written = await next.finish(later, done(later), [{ type: "dte_envio.processed", data: { n: 5 } }], now + 10 * LEASE);
          expect(written!.map((e) => e.sequence)).toEqual([events.length + 1]);
        }
      }),
      { numRuns: 30 },
    );
  });

  it("a lease its runner died holding is taken again after lease_until, and the dead runner's late finish writes nothing", async () => {
    const config = await freshTable();
    const store = storeOn(config);
    const jobs = [0, 1, 2].map((i) => newJob("acct_a", `s${i}`, T0, { due: T0 + i }));
    for (const job of jobs) await store.create(job, 10);
    const dead = await storeOn(config).lease(T0 + 10, LEASE, 10);
    expect(dead.map((j) => j.id)).toEqual(jobs.map((j) => j.id));
    const other = storeOn(config);
    // Still held: nobody gets them, and the runner should look again when the leases run out.
    expect(await other.lease(T0 + LEASE, LEASE, 10)).toEqual([]);
    expect(await other.nextDue()).toBe(T0 + 10 + LEASE);
    const taken = await other.lease(T0 + 10 + LEASE, LEASE, 10);
    expect(taken.map((j) => j.id)).toEqual(jobs.map((j) => j.id));
    for (const job of dead)
      expect(await storeOn(config).finish(job, done(job), [{ type: "dte_envio.processed", data: {} }], T0 + 20 + LEASE)).toBeNull();
    expect(await other.events("acct_a", { after: 0, limit: 10 }, T0 + 20 + LEASE)).toEqual([]);
    for (const job of dead) expect(await other.get("acct_a", job.id)).toMatchObject({ estado: "pendiente", version: job.version + 1 });
    const written = await other.finish(taken[0]!, done(taken[0]!), [{ type: "dte_envio.processed", data: {} }], T0 + 30 + LEASE);
    expect(written!.map((e) => e.sequence)).toEqual([1]);
  });

  it("a creation that died before claiming its subject is nobody's job and is removed; one that died after is the subject's job", async () => {
    const config = await freshTable();
    const raw = dynamoClient(config);
    // A creation's requests: the job item, its list entry, its pointer, the claim, the adoption.
    const unclaimed = newJob("acct_a", "s1", T0);
    await expect(storeOn(config, 4).create(unclaimed, 10)).rejects.toThrow(Crash);
    const store = storeOn(config);
    expect(await store.get("acct_a", unclaimed.id)).toBeNull();
    expect(await store.list("acct_a", { limit: 10 })).toEqual([]);
    expect(await store.lease(T0, LEASE, 10)).toEqual([]);
    const fresh = await store.create(newJob("acct_a", "s1", T0 + 1), 10);
    expect(fresh.state).toBe("created");
    // Once its writer is surely gone, the runner's look removes it.
    const later = T0 + 16 * 60_000;
    expect((await store.lease(later, LEASE, 10)).map((j) => j.id)).toEqual([fresh.state === "created" ? fresh.job.id : ""]);
    const left = await raw("GetItem", {
      TableName: config.table,
      Key: { pk: { S: "job#acct_a" }, sk: { S: unclaimed.id } },
      ConsistentRead: true,
    });
    expect(left.Item).toBeUndefined();

    const claimed = newJob("acct_a", "s2", T0);
    await expect(storeOn(config, 5).create(claimed, 10)).rejects.toThrow(Crash);
    expect(await store.create(newJob("acct_a", "s2", T0 + 1), 10)).toMatchObject({ state: "existing", job: { id: claimed.id } });
    expect((await store.lease(later + LEASE, LEASE, 10)).map((j) => j.id)).toContain(claimed.id);
    expect((await store.list("acct_a", { limit: 10 })).map((j) => j.id)).toContain(claimed.id);
  });

  it("a runner that dies in the middle of a lease leaves every job to be leased by one runner, at once or when its lease ran out", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 12 }), async (dieAt) => {
        const config = await freshTable();
        const store = storeOn(config);
        const jobs = [0, 1, 2].map((i) => newJob("acct_a", `s${i}`, T0, { due: T0 + i }));
        for (const job of jobs) await store.create(job, 10);
        await survive(() => storeOn(config, dieAt).lease(T0 + 10, LEASE, 10));
        const now = await store.lease(T0 + 10, LEASE, 10);
        // Those free now are run and put off for a day: only the dead runner's come back after its lease.
        for (const job of now)
          expect(await store.finish(job, { ...done(job), estado: "pendiente", due: T0 + 86_400_000 }, [], T0 + 11)).toEqual([]);
        const later = await store.lease(T0 + 10 + LEASE, LEASE, 10);
        expect([...now, ...later].map((j) => j.id).sort()).toEqual(jobs.map((j) => j.id).sort());
      }),
      { numRuns: 15 },
    );
  });
});
