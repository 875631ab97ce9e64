// Jobs on Workers in workerd: the store's contract on a real Durable Object per account, the object's
// alarm (set by writes, kept across an eviction, reset after a round even one that threw), the runner
// on the object's own jobs, the cron that re-arms an object whose alarm was lost, and a job from
// POST /api/v1/jobs through the Worker to its verdict on the sandbox's clock.
import { createScheduledController, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { JOB_ACCOUNTS_PREFIX } from "../../src/adapters/cloudflare/durable-jobs.ts";
import worker, { type AccountJobs, type WorkerEnv, workerDeps } from "../../src/entry/worker.ts";
import type { JobKind, JobRecord, JobUpdate } from "../../src/ports/jobs.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { type JobStoreUnderTest, jobStoreContract, newJob } from "../support/job-store-contract.ts";
import { rcvDownloadProperty } from "../support/rcv-download-property.ts";
import { webhookDeliveryProperty } from "../support/webhook-delivery-property.ts";
import { ADMIN_HEADERS, fetchWorker } from "./worker.ts";

const bindings = env as unknown as WorkerEnv;
/** Each case makes dozens of Durable Object round trips: on a busy 2-core machine they take seconds. */
const SLOW_MS = 60_000;

const accountName = () => `acct_${crypto.randomUUID()}`;
const objectOf = (name: string) => bindings.JOBS.get(bindings.JOBS.idFromName(name));
type Stub = ReturnType<typeof objectOf>;

/**
 * What the object's own method throws, called in the object: a rejection that crosses RPC is also
 * reported by the test pool as unhandled (cloudflare/workers-sdk#14736).
 */
const refusal = (stub: Stub, call: (object: AccountJobs) => Promise<unknown>) =>
  runInDurableObject(stub, (object: AccountJobs) =>
    call(object).then(
      () => null,
      (err: Error) => err.message,
    ),
  );

const alarmOf = (stub: Stub) => runInDurableObject(stub, (_o: AccountJobs, state) => state.storage.getAlarm());

/** An hour ahead in real time: an alarm set there does not fire while a test runs. */
const later = () => Date.now() + 3600_000;

const done: JobUpdate = { estado: "completado", progress: null, sealed: null, due: null, runs: 1, error: null };
const cancel: JobUpdate = { estado: "cancelado", progress: null, sealed: null, due: null, runs: 0, error: null };

/** The object's JobStore and JobQueue, called over RPC as the Worker calls it. */
const storeOf = (stub: Stub): JobStoreUnderTest => ({
  create: (job, maxLive) => stub.create(job, maxLive),
  get: (account, id) => stub.get(account, id),
  list: (account, options) => stub.list(account, options),
  change: (account, id, from, update, events, now) => stub.change(account, id, [...from], update, events, now),
  events: (account, options, now) => stub.events(account, options, now),
  event: (account, id, now) => stub.event(account, id, now),
  live: (account, prefix) => stub.live(account, prefix),
  wake: (account, prefix, now) => stub.wake(account, prefix, now),
  putResultPiece: (account, id, attempt, index, sealed, expires) => stub.putResultPiece(account, id, attempt, index, sealed, expires),
  resultPiece: (account, id, attempt, index, now) => stub.resultPiece(account, id, attempt, index, now),
  lease: (now, leaseMs, limit) => stub.lease(now, leaseMs, limit),
  finish: (job, update, events, now) => stub.finish(job, update, events, now),
  nextDue: () => stub.nextDue(),
});

/** A fresh object whose own runner is held off (its alarm does nothing): the test leases and runs by hand. */
async function heldOffObject(): Promise<JobStoreUnderTest> {
  const stub = objectOf(accountName());
  await runInDurableObject(stub, (object: AccountJobs) => {
    object.alarm = async () => {};
  });
  return storeOf(stub);
}

describe("jobs in a Durable Object per account", () => {
  // A fresh object each time. The contract's times are in the past, so each alarm it sets fires as soon as
  // the runtime gets to it and would run the jobs the contract leases by hand: this instance's own runner
  // is held off (its alarm does nothing), the rest of the object is the one the Worker calls.
  jobStoreContract(heldOffObject, { oneAccount: true });
  webhookDeliveryProperty(heldOffObject, 8);
  rcvDownloadProperty(heldOffObject, 4);
});

describe("the jobs object of an account", () => {
  it("refuses a job, or a question, of another account", async () => {
    const stub = objectOf(accountName());
    const at = later();
    await storeOf(stub).create(newJob("acct_a", "s1", at), 10);
    expect(await refusal(stub, (o) => o.create(newJob("acct_b", "s1", at), 10))).toMatch(/another account/);
    expect(await refusal(stub, async (o) => o.list("acct_b", { limit: 10 }))).toMatch(/another account/);
    expect(await refusal(stub, async (o) => o.get("acct_b", "job_aaaaaaaaaaaaaaaaaaaaaaaa"))).toMatch(/another account/);
    expect((await storeOf(stub).list("acct_a", { limit: 10 })).length).toBe(1);
  });

  it(
    "sets its alarm at the earliest due job after each write, and drops it when nothing is due",
    async () => {
      const stub = objectOf(accountName());
      const store = storeOf(stub);
      const at = later();
      expect(await alarmOf(stub)).toBeNull();
      const b = newJob("acct_a", "b", at, { due: at + 600_000 });
      await store.create(b, 10);
      expect(await alarmOf(stub)).toBe(at + 600_000);
      // An earlier job brings the alarm forward.
      const a = newJob("acct_a", "a", at, { due: at });
      await store.create(a, 10);
      expect(await alarmOf(stub)).toBe(at);
      expect((await store.change("acct_a", b.id, ["pendiente"], cancel, [], at)).state).toBe("changed");
      expect(await alarmOf(stub)).toBe(at);
      const [leased] = await store.lease(at, 60_000, 10);
      expect(leased?.id).toBe(a.id);
      expect(await store.finish(leased!, done, [], at)).toEqual([]);
      expect(await store.nextDue()).toBeNull();
      expect(await alarmOf(stub)).toBeNull();
    },
    SLOW_MS,
  );

  it(
    "sets its alarm at a result piece's expiry when nothing is due sooner, and that round erases the piece",
    async () => {
      const stub = objectOf(accountName());
      const store = storeOf(stub);
      const at = later();
      await store.create(newJob("acct_a", "a", at, { due: at + 600_000 }), 10);
      await store.putResultPiece("acct_a", "job_1", 1, 0, "sealed", at);
      expect(await alarmOf(stub)).toBe(at);
      // The piece expires (its alarm, an hour away, is run by hand below).
      const now = Date.now();
      await runInDurableObject(stub, (_o: AccountJobs, state) => {
        state.storage.sql.exec("UPDATE job_results SET expires = ?", now);
      });
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      const left = await runInDurableObject(
        stub,
        (_o: AccountJobs, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM job_results").one().n,
      );
      expect(left).toBe(0);
      // The job is what the alarm waits for now.
      expect(await alarmOf(stub)).toBe(at + 600_000);
    },
    SLOW_MS,
  );

  it(
    "loses neither its jobs nor its alarm when evicted",
    async () => {
      const name = accountName();
      const stub = objectOf(name);
      const at = later();
      const jobs = [newJob("acct_a", "a", at, { due: at }), newJob("acct_a", "b", at + 1, { due: at + 5_000 })];
      for (const job of jobs) await storeOf(stub).create(job, 10);
      // A mark in the instance's memory tells a new instance from the old one.
      await runInDurableObject(stub, (object: AccountJobs) => {
        Object.assign(object, { mark: "before" });
      });
      await evictDurableObject(stub);
      const again = objectOf(name);
      expect(await runInDurableObject(again, (object: AccountJobs) => (object as unknown as { mark?: string }).mark)).toBeUndefined();
      expect(await storeOf(again).list("acct_a", { limit: 10 })).toEqual([...jobs].reverse());
      expect(await alarmOf(again)).toBe(at);
      // It still knows whose it is.
      expect(await refusal(again, (o) => o.create(newJob("acct_b", "c", at), 10))).toMatch(/another account/);
    },
    SLOW_MS,
  );

  it(
    "its alarm runs the runner on its own jobs: a follow-up without an SII token waits for credentials",
    async () => {
      const stub = objectOf(accountName());
      const store = storeOf(stub);
      const created = Date.now();
      const input = { emisor: "76192083-9", track_id: "12345", servicio: "dte", ambiente: "0" };
      const job = newJob("acct_a", "envio:0:dte:76192083-9:12345", created, { input, sealed: null, due: later() });
      await store.create(job, 10);
      // The job falls due (its alarm, an hour away, is run by hand below).
      await runInDurableObject(stub, (_o: AccountJobs, state) => {
        state.storage.sql.exec("UPDATE jobs SET due = ? WHERE id = ?", created, job.id);
      });
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      expect(await store.get("acct_a", job.id)).toMatchObject({ estado: "credenciales_requeridas", due: null, lease_until: 0 });
      const events = await store.events("acct_a", { after: 0, limit: 10 }, Date.now());
      expect(events.map((e) => [e.type, e.data.job_id])).toEqual([["job.credentials_required", job.id]]);
      // Nothing is due any more: the round left no alarm.
      expect(await alarmOf(stub)).toBeNull();
    },
    SLOW_MS,
  );

  it(
    "a round that throws still leaves an alarm, at the end of the lease it took",
    async () => {
      const stub = objectOf(accountName());
      const store = storeOf(stub);
      const created = Date.now();
      // A kind the runner does not know makes its round throw after the lease.
      const job = newJob("acct_a", "s1", created, { kind: "desconocido" as JobKind, due: later() });
      await store.create(job, 10);
      await runInDurableObject(stub, (_o: AccountJobs, state) => {
        state.storage.sql.exec("UPDATE jobs SET due = ? WHERE id = ?", created, job.id);
      });
      await runDurableObjectAlarm(stub).catch(() => false);
      const held = (await store.get("acct_a", job.id)) as JobRecord;
      expect(held.lease_until).toBeGreaterThan(created);
      expect(await alarmOf(stub)).toBe(held.lease_until);
    },
    SLOW_MS,
  );

  it(
    "the cron re-arms an object whose alarm was lost, and leaves one with nothing due without",
    async () => {
      const live = accountName();
      const idle = accountName();
      const at = later();
      const liveJob = newJob(live, "a", at, { due: at });
      const idleJob = newJob(idle, "a", at, { due: at });
      await storeOf(objectOf(live)).create(liveJob, 10);
      await storeOf(objectOf(idle)).create(idleJob, 10);
      await storeOf(objectOf(idle)).change(idle, idleJob.id, ["pendiente"], cancel, [], at);
      // Both are in the registry.
      const keys = (await bindings.SETTINGS.list({ prefix: JOB_ACCOUNTS_PREFIX })).keys.map((k) => k.name);
      expect(keys).toEqual(expect.arrayContaining([`${JOB_ACCOUNTS_PREFIX}${live}`, `${JOB_ACCOUNTS_PREFIX}${idle}`]));
      await runInDurableObject(objectOf(live), (_o: AccountJobs, state) => state.storage.deleteAlarm());
      expect(await alarmOf(objectOf(live))).toBeNull();

      await worker.scheduled(createScheduledController({ cron: "*/5 * * * *" }), bindings);
      expect(await alarmOf(objectOf(live))).toBe(at);
      expect(await alarmOf(objectOf(idle))).toBeNull();
    },
    SLOW_MS,
  );
});

// Last in the file: it moves this isolate's sandbox clock ahead, which the tests above take as real time.
describe("a job through the Worker", () => {
  it(
    "POST /api/v1/jobs reaches the account's object, whose alarm, on the sandbox's clock, follows the envelope to its verdict",
    async () => {
      // One step to the verdict is what the rough schedule legitimately changes (a transient answer retries):
      // the tidy sandbox here, the one the Worker and the object share.
      simulatorOf((await workerDeps(bindings)).sii).state.rough = null;
      const account = accountName();
      const issued = await fetchWorker("/admin/v1/tokens", {
        method: "POST",
        headers: ADMIN_HEADERS,
        body: JSON.stringify({ name: "jobs", account, scopes: ["sii:read"] }),
      });
      expect(issued.status).toBe(201);
      const { token } = ((await issued.json()) as { data: { token: string } }).data;
      const headers = { "x-api-token": token, "content-type": "application/json" };
      // Juana represents the sandbox company, whose envelope 0260000001 the SII has processed (EPR).
      const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
      const created = await fetchWorker("/api/v1/jobs", {
        method: "POST",
        headers,
        body: JSON.stringify({
          auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } },
          tipo: "seguimiento_envio",
          envio: { emisor: "76192083-9", track_id: "0260000001", servicio: "dte", ambiente: "0" },
        }),
      });
      expect(created.status).toBe(201);
      const { id } = ((await created.json()) as { data: { job: { id: string } } }).data.job;
      const stub = objectOf(account);
      const job = (await storeOf(stub).get(account, id)) as JobRecord;
      expect(job).toMatchObject({ estado: "pendiente", account, runs: 0 });
      expect(await alarmOf(stub)).toBe(job.due);

      // The sandbox's clock moved ahead is the object's clock too: a re-arm (the cron's) brings the alarm
      // forward by as much in real time (still some 20 s ahead: it does not fire by itself meanwhile).
      const advance = (seconds: number) =>
        fetchWorker("/sandbox/v1/clock", { method: "POST", headers: ADMIN_HEADERS, body: JSON.stringify({ avanzar_segundos: seconds }) });
      expect((await advance(5)).status).toBe(200);
      await stub.rearm();
      expect(await alarmOf(stub)).toBe((job.due as number) - 5_000);
      // A minute later on that clock the job is due; its alarm, run now, asks the sandbox that gave the token.
      expect((await advance(60)).status).toBe(200);
      expect(await runDurableObjectAlarm(stub)).toBe(true);

      const read = await fetchWorker(`/api/v1/jobs/${id}`, { headers });
      expect(((await read.json()) as { data: { estado: string } }).data.estado).toBe("completado");
      const events = await fetchWorker("/api/v1/events", { headers });
      const feed = ((await events.json()) as { data: { events: { type: string; data: { job_id: string } }[] } }).data.events;
      expect(feed.map((e) => [e.type, e.data.job_id])).toEqual([["dte_envio.processed", id]]);
      expect(await alarmOf(stub)).toBeNull();
    },
    SLOW_MS,
  );
});
