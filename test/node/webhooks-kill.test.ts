// Webhook deliveries on one SQLite file under two runner processes, each killed -9 at random moments (in the
// middle of a step's deliveries too) and started again, delivering to a slow receiver on loopback. The
// invariant, in words: every event of the feed is delivered (a 2xx) to the endpoint, each request carrying
// that event's id and a signature its secret verifies; an event gets more than one 2xx only when a runner
// died between a 2xx and its write, so at most once more per kill; and the endpoint's cursor ends at the last event.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createNodeDeps } from "../../src/entry/node-server.ts";
import { randomName } from "../../src/lib/random-name.ts";
import { progressOf, wakeDeliveries, webhookSubject } from "../../src/services/webhook-delivery.ts";
import { newEndpointJob } from "../../src/services/webhook-endpoints.ts";
import { exited, killGroup, spawnGateway } from "../support/ledger-kill.ts";
import { loopbackReceiver } from "../support/webhook-receiver.ts";
import { verifies } from "../support/webhook-verify.ts";

const EVENTS = 240;
const LEASE_MS = 2000;
const KILLS = 6;
const ACCOUNT = "acct_hooks_kill";
const runner = join(import.meta.dirname, "..", "support", "webhook-kill-runner.ts");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("webhook deliveries on SQLite, two runner processes, kill -9 at random", () => {
  it("delivers every event, signed and with its id, at most once more per kill", { timeout: 120_000 }, async () => {
    const path = join(mkdtempSync(join(tmpdir(), "sii-gw-webhooks-kill-")), "state.sqlite");
    const deps = await createNodeDeps({ env: { SII_UPSTREAM: "sandbox" }, database: path, publicDir: ".", log: { log: () => {} } });
    const hook = await loopbackReceiver([], () => Math.random() * 30);
    const now = deps.clock.now().getTime();
    const { job: endpoint, secret } = await newEndpointJob(
      deps,
      ACCOUNT,
      "tok_test",
      { url: hook.url, eventos: null, descripcion: null },
      webhookSubject("1"),
      now,
    );
    expect((await deps.jobs.create(endpoint, 100)).state).toBe("created");
    // The account's events, written by another job of it.
    const writer = { ...endpoint, id: randomName("job"), kind: "vigilancia_folios" as const, subject: "writer", sealed: null, due: null };
    await deps.jobs.create(writer, 100);
    const events = Array.from({ length: EVENTS }, (_, n) => ({ type: "folios.low" as const, data: { n } }));
    await deps.jobs.change(ACCOUNT, writer.id, ["pendiente"], writer, events, now);
    // As the runner does after a step's events: the endpoint looks now.
    await wakeDeliveries(deps, ACCOUNT);
    const start = () =>
      spawnGateway(process.execPath, ["--experimental-strip-types", "--no-warnings", runner, path, String(LEASE_MS)], {
        cwd: process.cwd(),
        env: process.env,
        ready: "runner ready",
        withinMs: 30_000,
      });
    const runners = await Promise.all([start(), start()]);
    let kills = 0;
    const cursor = async () => progressOf((await deps.jobs.get(ACCOUNT, endpoint.id))!).cursor;
    try {
      const deadline = Date.now() + 90_000;
      while ((await cursor()) < EVENTS) {
        if (Date.now() > deadline) throw new Error(`the endpoint's cursor is at ${await cursor()} of ${EVENTS} after 90 s`);
        await sleep(30 + Math.random() * 300);
        if (kills < KILLS && hook.received.length > 0) {
          const which = Math.floor(Math.random() * runners.length);
          killGroup(runners[which]!);
          await exited(runners[which]!);
          kills++;
          runners[which] = await start();
        }
      }
    } finally {
      runners.forEach(killGroup);
      await Promise.all(runners.map(exited));
      await hook.close();
    }
    const feed = await deps.jobs.events(ACCOUNT, { after: 0, limit: 1000 }, Date.now());
    expect(feed).toHaveLength(EVENTS);
    const counts = new Map<string, number>();
    for (const request of hook.received) {
      const id = String(request.headers["webhook-id"]);
      expect((JSON.parse(request.body) as { id: string }).id).toBe(id);
      expect(verifies(secret, request)).toBe(true);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const event of feed) {
      expect(counts.get(event.id) ?? 0, `${event.id} delivered`).toBeGreaterThanOrEqual(1);
      expect(counts.get(event.id) ?? 0, `${event.id}: deliveries with ${kills} kills`).toBeLessThanOrEqual(1 + kills);
    }
    expect(counts.size).toBe(EVENTS);
    console.info(`webhooks kill property: ${kills} kills, ${hook.received.length} requests for ${EVENTS} events`);
  });
});
