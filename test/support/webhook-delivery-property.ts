// The deliveries' invariant as a property any job store runs (`webhookDeliveryProperty(() => store)` in a
// describe block): one account, two endpoints (one subscribed to every type, one to a single type), events
// written by another job, runner rounds alone and two at once, runners that die after sending and before
// their write, receivers that fail, redirect, ask to wait or do not answer, and the clock moving on.
import fc from "fast-check";
import { expect, it } from "vitest";
import { randomName } from "../../src/lib/random-name.ts";
import type { Deps } from "../../src/ports/deps.ts";
import type { EventType, JobQueue, JobRecord, JobStore } from "../../src/ports/jobs.ts";
import type { WebhookOutcome } from "../../src/ports/webhooks.ts";
import { JOB_LEASE_MS, runDueJobs } from "../../src/services/job-runner.ts";
import { deliverEvents, wakeDeliveries, webhookSubject } from "../../src/services/webhook-delivery.ts";
import { newEndpointJob } from "../../src/services/webhook-endpoints.ts";
import { testDeps } from "./app.ts";
import { delivered, type RecordingWebhookSender } from "./webhook-sender.ts";
import { verifies } from "./webhook-verify.ts";

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const ACCOUNT = "acct_hooks";
const ALL = "https://all.example.cl/";
const ONE = "https://one.example.cl/";
const TYPES: EventType[] = ["dte_envio.processed", "folios.low"];

const answers: Record<string, WebhookOutcome> = {
  ok: delivered(200),
  error: delivered(500),
  redirect: { state: "answered", status: 302, retryAfter: null, body: "" },
  wait: { state: "answered", status: 503, retryAfter: "600", body: "busy" },
  silent: { state: "failed", reason: "timed out after 15 s" },
};

type Step =
  | { op: "events"; types: number[] }
  | { op: "run" }
  | { op: "race" }
  | { op: "crash" }
  | { op: "answer"; url: 0 | 1; answer: keyof typeof answers }
  | { op: "tick"; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("events" as const), types: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ op: fc.constant("run" as const) }),
  fc.record({ op: fc.constant("race" as const) }),
  fc.record({ op: fc.constant("crash" as const) }),
  fc.record({
    op: fc.constant("answer" as const),
    url: fc.constantFrom(0 as const, 1 as const),
    answer: fc.constantFrom(...(Object.keys(answers) as (keyof typeof answers)[])),
  }),
  fc.record({ op: fc.constant("tick" as const), ms: fc.integer({ min: 1_000, max: 3_600_000 }) }),
);

/**
 * The invariant, in words: whatever the runners, the crashes, the receivers and the clock do, (1) every
 * request a receiver gets is an event of the account's feed that its endpoint subscribes to, with that
 * event's id as `webhook-id`, the same body on every attempt, and a signature the endpoint's secret verifies;
 * (2) once the receivers answer 2xx and the retries' time has passed, every subscribed event has been
 * delivered (a 2xx) to each endpoint, none lost; and (3) an event gets a second 2xx from one endpoint only
 * when a runner died after an earlier one, before writing it: at most one more per such crash.
 */
export function webhookDeliveryProperty(make: () => Promise<JobStore & JobQueue> | (JobStore & JobQueue), numRuns = 25) {
  it("property: every subscribed event delivered, signed, with its own id; a duplicate only after a crash", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30 }), async (steps) => {
        const store = await make();
        let now = T0;
        const { deps: base } = testDeps();
        const sender = base.webhooks as RecordingWebhookSender;
        const deps: Deps = { ...base, jobs: store, clock: { now: () => new Date(now) } };
        const next: Record<string, keyof typeof answers> = { [ALL]: "ok", [ONE]: "ok" };
        const made = await Promise.all([
          newEndpointJob(deps, ACCOUNT, "tok_test", { url: ALL, eventos: null, descripcion: null }, webhookSubject("1"), now),
          newEndpointJob(deps, ACCOUNT, "tok_test", { url: ONE, eventos: ["folios.low"], descripcion: null }, webhookSubject("2"), now),
        ]);
        for (const { job } of made) expect((await store.create(job, 100)).state).toBe("created");
        const secrets = new Map(made.map(({ job, secret }) => [(job.input as { url: string }).url, secret]));
        // The job whose changes write the account's events.
        const writer: JobRecord = {
          ...made[0]!.job,
          id: randomName("job"),
          kind: "vigilancia_folios",
          subject: "writer",
          sealed: null,
          due: null,
        };
        await store.create(writer, 100);
        /** Every attempt in order: to which endpoint, which event, and whether it was a 2xx. */
        const attempts: { key: string; ok: boolean }[] = [];
        sender.answer = (request) => {
          const outcome = answers[next[request.url] ?? "ok"]!;
          const ok = outcome.state === "answered" && outcome.status >= 200 && outcome.status < 300;
          attempts.push({ key: `${request.url} ${(JSON.parse(request.body) as { id: string }).id}`, ok });
          return outcome;
        };
        /** Per endpoint and event, the 2xx answers a dead runner got before it could write them. */
        const lost = new Map<string, number>();
        const round = () => runDueJobs(store, deps);
        for (const s of steps) {
          if (s.op === "tick") now += s.ms;
          if (s.op === "answer") next[[ALL, ONE][s.url]!] = s.answer;
          if (s.op === "events") {
            const events = s.types.map((t) => ({ type: TYPES[t]!, data: { n: t } }));
            await store.change(ACCOUNT, writer.id, ["pendiente"], { ...writer, due: null }, events, now);
            await wakeDeliveries(deps, ACCOUNT);
          }
          if (s.op === "run") await round();
          if (s.op === "race") await Promise.all([round(), round()]);
          if (s.op === "crash") {
            // A runner leases, sends, and dies before its write: its lease runs out later.
            const from = attempts.length;
            for (const job of await store.lease(now, JOB_LEASE_MS, 25)) if (job.kind === "entrega_webhook") await deliverEvents(job, deps);
            for (const { key, ok } of attempts.slice(from)) if (ok) lost.set(key, (lost.get(key) ?? 0) + 1);
          }
        }
        // Every receiver answers 2xx from now on, and the retries' time passes (the schedule's longest wait is
        // 24 h). Thirty steps of at most an hour reach neither the tenth attempt (after some 75 h of waits) nor
        // the five failing days that disable an endpoint: every event is still to be delivered.
        next[ALL] = "ok";
        next[ONE] = "ok";
        for (let i = 0; i < 12; i++) {
          now += 25 * 3_600_000;
          await round();
          await round();
        }
        const oks = new Map<string, number>();
        for (const { key, ok } of attempts) if (ok) oks.set(key, (oks.get(key) ?? 0) + 1);
        const feed = await store.events(ACCOUNT, { after: 0, limit: 1000 }, now);
        const byId = new Map(feed.map((e) => [e.id, e]));
        // (1)
        const bodies = new Map<string, string>();
        for (const request of sender.sent) {
          const body = JSON.parse(request.body) as { id: string; type: EventType; sequence: number };
          const event = byId.get(body.id);
          expect(event, `${request.url} got ${body.id}, which is not in the feed`).toBeDefined();
          expect(request.headers["webhook-id"]).toBe(body.id);
          if (request.url === ONE) expect(body.type).toBe("folios.low");
          expect(bodies.get(body.id) ?? request.body).toBe(request.body);
          bodies.set(body.id, request.body);
          expect(verifies(secrets.get(request.url)!, request)).toBe(true);
        }
        // (2) and (3), for each endpoint that is still active (a receiver answering 410 is not drawn, so both are).
        for (const url of [ALL, ONE]) {
          for (const event of feed) {
            if (url === ONE && event.type !== "folios.low") continue;
            const key = `${url} ${event.id}`;
            expect(oks.get(key) ?? 0, `${key} delivered`).toBeGreaterThanOrEqual(1);
            expect(oks.get(key) ?? 0, `${key}: 2xx answers`).toBeLessThanOrEqual(1 + (lost.get(key) ?? 0));
          }
        }
      }),
      { numRuns },
    );
  }, 120_000);
}
