// The Lambda's scheduled handler (EventBridge, every minute) over its DynamoDB table: it runs what is due,
// in rounds while a round was full, and a job without a sealed SII token ends waiting for credentials.
import { beforeAll, describe, expect, it } from "vitest";
import { createDynamoStores } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { createScheduledHandler } from "../../src/entry/lambda.ts";
import { JOBS_PER_ROUND } from "../../src/services/job-runner.ts";
import { newJob } from "../support/job-store-contract.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const local = localDynamoDb("jobs-scheduled");
let scheduled: ReturnType<typeof createScheduledHandler>;

/** What EventBridge sends a scheduled rule's target. */
const tick = {
  version: "0",
  id: "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa",
  "detail-type": "Scheduled Event",
  source: "aws.events",
  account: "123456789012",
  time: "2026-12-01T12:00:00Z",
  region: "us-east-1",
  resources: ["arn:aws:events:us-east-1:123456789012:rule/sweep"],
  detail: {},
};

beforeAll(() => {
  scheduled = createScheduledHandler({
    ...local.env(),
  });
});

/** A job following an envelope, due since the epoch (whatever the clock says), holding no SII token. */
const tokenless = (account: string, trackId: string) =>
  newJob(account, `envio:certificacion:dte:76192083-9:${trackId}`, 0, {
    input: { emisor: "76192083-9", track_id: trackId, servicio: "dte", ambiente: "certificacion" },
    sealed: null,
    due: 1,
    expires: 8.64e15,
  });

describe("the scheduled handler", () => {
  it("runs a due job without a sealed token into credenciales_requeridas, with one job.credentials_required event", async () => {
    const store = createDynamoStores(local.config).jobs;
    const job = tokenless("acct_sched", "1001");
    expect((await store.create(job, 10)).state).toBe("created");
    expect(await scheduled(tick)).toEqual({ rounds: 1, ran: 1, lost: 0 });
    const after = await store.get("acct_sched", job.id);
    expect(after).toMatchObject({ estado: "credenciales_requeridas", due: null, sealed: null, lease_until: 0 });
    const events = await store.events("acct_sched", { after: 0, limit: 10 }, after!.updated_at);
    expect(events.map((e) => [e.sequence, e.type, e.data.job_id, e.data.track_id])).toEqual([
      [1, "job.credentials_required", job.id, "1001"],
    ]);
    // Nothing is due any more: the next minute's invocation runs nothing.
    expect(await scheduled(tick)).toEqual({ rounds: 1, ran: 0, lost: 0 });
  });

  it("takes another round while a round was full, so one invocation runs more than a round's jobs", async () => {
    const store = createDynamoStores(local.config).jobs;
    const jobs = Array.from({ length: JOBS_PER_ROUND + 3 }, (_, i) => tokenless("acct_many", String(2000 + i)));
    for (const job of jobs) await store.create(job, 100);
    expect(await scheduled(tick)).toEqual({ rounds: 2, ran: jobs.length, lost: 0 });
    for (const job of jobs) expect((await store.get("acct_many", job.id))?.estado).toBe("credenciales_requeridas");
    expect(await store.nextDue()).toBeNull();
  });
});
