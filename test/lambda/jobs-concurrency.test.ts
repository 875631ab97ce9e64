// The DynamoDB job store under concurrent callers, each its own store on one table (several Lambda
// instances): creations racing for one subject or the last live places, runners and a cancel racing on
// the same jobs while readers follow the feed.
import { describe, expect, it } from "vitest";
import { createDynamoStores, createDynamoTable, type DynamoConfig } from "../../src/adapters/lambda/dynamodb-stores.ts";
import type { EventRecord, JobRecord, NewEvent } from "../../src/ports/jobs.ts";
import { newJob } from "../support/job-store-contract.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const local = localDynamoDb("jobs-concurrency");
const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
let tables = 0;

async function freshTable(): Promise<DynamoConfig> {
  const config = { ...local.config, table: `jobs-concurrency-${++tables}` };
  await createDynamoTable(config);
  return config;
}
const instance = (config: DynamoConfig) => createDynamoStores(config).jobs;

describe("jobs on DynamoDB with concurrent instances", () => {
  it("of creations racing for one subject one is created and the rest answer it; of those racing for the last places, only as many as fit", async () => {
    const config = await freshTable();
    const same = await Promise.all(Array.from({ length: 8 }, () => instance(config).create(newJob("acct_a", "one"), 100)));
    const created = same.filter((r) => r.state === "created");
    expect(created).toHaveLength(1);
    const id = created[0]!.state === "created" ? created[0]!.job.id : "";
    for (const r of same) expect(r.state === "created" || (r.state === "existing" && r.job.id === id)).toBe(true);

    const many = await Promise.all(Array.from({ length: 8 }, (_, i) => instance(config).create(newJob("acct_a", `s${i}`), 4)));
    expect(many.filter((r) => r.state === "created")).toHaveLength(3);
    expect(many.filter((r) => r.state === "full")).toHaveLength(5);
    // The losers' job items are gone: the account lists exactly the jobs created.
    const listed = await instance(config).list("acct_a", { limit: 100 });
    expect(listed).toHaveLength(4);
  });

  /**
   * The invariant, in words: while runners finish jobs with events and a cancel races them, (1) a reader
   * following the feed from its cursor gets the sequences right after it, never one past a gap (a gap
   * filled later would be skipped by its cursor for good), and (2) the feed ends as exactly the accepted
   * writes' events, numbered 1…n.
   */
  it("runners, a cancel and readers at once: readers never see a gap, and the feed is every accepted event once", async () => {
    const config = await freshTable();
    const jobs: JobRecord[] = Array.from({ length: 8 }, (_, i) => newJob("acct_a", `s${i}`));
    for (const job of jobs) await instance(config).create(job, 100);
    let accepted = 0;
    let running = true;

    const runner = async () => {
      const store = instance(config);
      for (let round = 0; round < 6; round++) {
        for (const job of await store.lease(T0, 60_000, 2)) {
          const events: NewEvent[] = [
            { type: "dte_envio.processed" as const, data: { round } },
            { type: "job.failed" as const, data: { round } },
          ].slice(0, 1 + (round % 2));
          const update = { estado: "pendiente", progress: null, sealed: null, due: T0, runs: job.runs + 1, error: null } as const;
          const written = await store.finish(job, update, events, T0 + round);
          if (written) accepted += written.length;
        }
      }
    };
    const canceller = async () => {
      const store = instance(config);
      for (const job of jobs.slice(0, 3)) {
        const update = { estado: "cancelado", progress: null, sealed: null, due: null, runs: 0, error: null } as const;
        const changed = await store.change("acct_a", job.id, ["pendiente"], update, [{ type: "job.failed", data: { cancel: true } }], T0);
        if (changed.state === "changed") accepted += changed.events.length;
      }
    };
    const reader = async () => {
      const store = instance(config);
      const seen: EventRecord[] = [];
      while (running) {
        const page = await store.events("acct_a", { after: seen.at(-1)?.sequence ?? 0, limit: 5 }, T0);
        // (1): each page starts right after the cursor and has no hole.
        expect(page.map((e) => e.sequence)).toEqual(page.map((_, i) => seen.length + i + 1));
        seen.push(...page);
      }
      return seen;
    };

    const readers = [reader(), reader()];
    await Promise.all([runner(), runner(), runner(), canceller()]);
    running = false;
    const followed = await Promise.all(readers);
    // (2)
    const feed = await instance(config).events("acct_a", { after: 0, limit: 1000 }, T0);
    expect(feed.map((e) => e.sequence)).toEqual(feed.map((_, i) => i + 1));
    expect(feed.length).toBe(accepted);
    expect(new Set(feed.map((e) => e.id)).size).toBe(feed.length);
    for (const seen of followed) expect(feed.slice(0, seen.length)).toEqual(seen);
    for (const job of jobs.slice(0, 3)) {
      const cancelled = (await instance(config).get("acct_a", job.id))?.estado === "cancelado";
      expect(feed.some((e) => e.data.job_id === job.id && e.data.cancel)).toBe(cancelled);
    }
  });
});
