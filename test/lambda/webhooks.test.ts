// Webhooks on the Lambda runtime: the app and the scheduled sweep over the DynamoDB table, the real Node
// sender, and a receiver on loopback (allowed in sandbox mode). A job's event reaches the receiver at the
// sweeps after it (500, then 200 on the retry, one `webhook-id`, verified by the npm `standardwebhooks`),
// and a runner that dies between the receiver's 200 and its write costs one duplicate with the same id.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { createLambdaDeps, sweepJobs } from "../../src/entry/lambda.ts";
import { deliverEvents } from "../../src/services/webhook-delivery.ts";
import { newJob } from "../support/job-store-contract.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";
import { loopbackReceiver } from "../support/webhook-receiver.ts";
import { verifies } from "../support/webhook-verify.ts";

const local = localDynamoDb("webhooks-lambda");
const ADMIN = "lambda-admin-token-of-at-least-32-chars";
let hook: Awaited<ReturnType<typeof loopbackReceiver>>;
let url = "";

beforeAll(async () => {
  hook = await loopbackReceiver();
  url = hook.url;
});
afterAll(() => hook.close());

async function setup(account: string) {
  const deps = await createLambdaDeps({
    ...local.env(),
    ADMIN_TOKEN: ADMIN,
  });
  const app = createApp(() => deps);
  const json = { "content-type": "application/json" };
  const issued = await app.request("/admin/v1/tokens", {
    method: "POST",
    headers: { ...json, authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify({ name: "webhooks", account, scopes: ["settings:read", "settings:write", "sii:read"] }),
  });
  const { token } = ((await issued.json()) as { data: { token: string } }).data;
  const post = async (path: string, body: unknown) =>
    (
      await app.request(path, { method: "POST", headers: { ...json, "x-api-token": token }, body: JSON.stringify(body) })
    ).json() as Promise<{
      data: Record<string, unknown>;
    }>;
  const clock = (seconds: number) =>
    app.request("/sandbox/v1/clock", { method: "POST", headers: json, body: JSON.stringify({ avanzar_segundos: seconds }) });
  const sweep = () => sweepJobs(deps.jobs, deps);
  /** A job holding no SII token: its first run writes one job.credentials_required event. */
  const tokenless = (trackId: string) =>
    deps.jobs.create(
      newJob(account, `envio:certificacion:dte:76192083-9:${trackId}`, deps.clock.now().getTime(), {
        input: { emisor: "76192083-9", track_id: trackId, servicio: "dte", ambiente: "certificacion" },
        due: deps.clock.now().getTime(),
      }),
      10,
    );
  return { deps, post, clock, sweep, tokenless };
}

describe("webhooks on Lambda", () => {
  it("an event reaches a loopback receiver at the sweeps after it: a 500, then the retry's 200, with one webhook-id", async () => {
    const { post, clock, sweep, tokenless } = await setup("acct_wh_lambda");
    const created = (await post("/api/v1/webhooks/endpoints", { url })).data as { secreto: string };
    const before = hook.received.length;
    hook.statuses.push(500);
    await tokenless("2001");
    await sweep(); // the job's event, which wakes the endpoint
    await sweep(); // the endpoint's first attempt: 500
    expect(hook.received.length - before).toBe(1);
    await clock(6);
    await sweep();
    const mine = hook.received.slice(before);
    expect(mine).toHaveLength(2);
    expect(mine.map((r) => (JSON.parse(r.body) as { type: string }).type)).toEqual([
      "job.credentials_required",
      "job.credentials_required",
    ]);
    expect(new Set(mine.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(mine.every((r) => verifies(created.secreto, r))).toBe(true);
    await clock(3600);
    await sweep();
    expect(hook.received.length - before).toBe(2);
  });

  it("a runner that dies between the receiver's 200 and its write: the next sweep sends it once more with the same id, then nothing", async () => {
    const { deps, post, clock, sweep, tokenless } = await setup("acct_wh_lambda_crash");
    await post("/api/v1/webhooks/endpoints", { url });
    await sweep();
    await tokenless("2002");
    await sweep();
    const before = hook.received.length;
    // The dying runner: it leases the woken endpoint, delivers, and never writes.
    const leased = await deps.jobs.lease(deps.clock.now().getTime(), 60_000, 25);
    const endpoint = leased.find((job) => job.kind === "entrega_webhook" && job.account === "acct_wh_lambda_crash");
    expect(endpoint).toBeDefined();
    await deliverEvents(endpoint!, deps);
    expect(hook.received.length - before).toBe(1);
    await sweep(); // still held
    expect(hook.received.length - before).toBe(1);
    await clock(61);
    await sweep();
    const mine = hook.received.slice(before);
    expect(mine).toHaveLength(2);
    expect(mine[1]!.headers["webhook-id"]).toBe(mine[0]!.headers["webhook-id"]);
    await clock(3600);
    await sweep();
    expect(hook.received.length - before).toBe(2);
  });
});
