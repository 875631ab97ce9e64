// Webhooks on the Node runtime, in this process: (1) the time from a state change (a job's step writing its
// event) to the first byte of its delivery at a receiver on loopback, through the server's own job timer and
// the real sender; (2) deliveries per CPU-second for one account with 1 000 events pending, the receiver an
// instant 200 in this process (the gateway's own work: the feed read, the signing, the endpoint's writes);
// (3) the CPU of an endpoint's look at a feed with nothing new. The latency is gated by its budget (p99 ≤ 1 s
// in the sandbox, issue 36); the CPU figures are reported.
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app.ts";
import { startJobTimer } from "../src/entry/node-jobs.ts";
import { createNodeDeps } from "../src/entry/node-server.ts";
import { randomName } from "../src/lib/random-name.ts";
import type { JobRecord, NewEvent } from "../src/ports/jobs.ts";
import type { WebhookSender } from "../src/ports/webhooks.ts";
import { runDueJobs } from "../src/services/job-runner.ts";
import { cpuMs } from "./jobs.ts";

export interface WebhookFigure {
  name: string;
  unit: string;
  value: number;
  budget: number | null;
  gated: boolean;
}

const DEV = "sii_dev_bench_webhooks";
const LATENCY_BUDGET_MS = 1000;

async function gateway(webhooks?: WebhookSender) {
  let wake = () => {};
  const base = await createNodeDeps(
    {
      env: { SII_UPSTREAM: "sandbox", DEV_API_TOKEN: DEV },
      database: join(mkdtempSync(join(tmpdir(), "sii-bench-webhooks-")), "state.sqlite"),
      publicDir: "public",
      log: { log: () => {} },
    },
    () => wake(),
  );
  const deps = webhooks ? { ...base, webhooks } : base;
  const app = createApp(() => deps);
  const register = async (url: string) => {
    const res = await app.request("/api/v1/webhooks/endpoints", {
      method: "POST",
      headers: { "x-api-token": DEV, "content-type": "application/json" },
      body: JSON.stringify({ url }),
    });
    if (res.status !== 200) throw new Error(`the bench's endpoint was refused: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { endpoint: { id: string } } }).data.endpoint.id;
  };
  // The development token's account (seedDevToken).
  const account = "development";
  return { deps, register, account, onWake: (fn: () => void) => (wake = fn) };
}

/** A tracking job holding no SII token, due now: its step writes one job.credentials_required event. */
const tokenless = (account: string, n: number, now: number): JobRecord => ({
  id: randomName("job"),
  account,
  kind: "seguimiento_envio",
  subject: `envio:certificacion:dte:76192083-9:${9000 + n}`,
  estado: "pendiente",
  input: { emisor: "76192083-9", track_id: String(9000 + n), servicio: "dte", ambiente: "certificacion" },
  progress: null,
  sealed: null,
  token_id: "tok_bench",
  created_at: now,
  updated_at: now,
  due: now,
  expires: now + 72 * 3600_000,
  runs: 0,
  error: null,
  lease_until: 0,
  version: 1,
});

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** A receiver on loopback that notes, per delivery, the time from its event's write to its arrival (ms). */
async function timingReceiver() {
  const arrivals: number[] = [];
  let arrived: (() => void) | null = null;
  const server = createServer((req, res) => {
    const at = Date.now();
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      arrivals.push(at - Date.parse((JSON.parse(body) as { timestamp: string }).timestamp));
      res.writeHead(204).end();
      arrived?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  /** Resolves at the next arrival; rejects after 10 s. */
  const next = (what: string) =>
    new Promise<void>((resolve, reject) => {
      arrived = resolve;
      setTimeout(() => reject(new Error(`${what} did not arrive within 10 s`)), 10_000).unref();
    });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    next,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function latencies(rounds: number): Promise<number[]> {
  const receiver = await timingReceiver();
  const { deps, register, account, onWake } = await gateway();
  await register(receiver.url);
  const timer = startJobTimer(deps.jobs, deps);
  onWake(() => timer.wake());
  try {
    for (let i = 0; i < rounds; i++) {
      const got = receiver.next(`delivery ${i}`);
      await deps.jobs.create(tokenless(account, i, deps.clock.now().getTime()), 1000);
      await got;
    }
  } finally {
    await timer.stop();
    await receiver.close();
  }
  return [...receiver.arrivals].sort((a, b) => a - b);
}

/**
 * The same on Workers, through a running `wrangler dev` (bench/workerd.ts, full runs): an endpoint's test
 * event written by `POST …/test`, the account's Durable Object's alarm set by that write, its delivery.
 */
export async function workerdWebhookLatency(base: string, headers: Record<string, string>, rounds: number) {
  const receiver = await timingReceiver();
  try {
    const registered = await fetch(`${base}/api/v1/webhooks/endpoints`, {
      method: "POST",
      headers,
      body: JSON.stringify({ url: receiver.url }),
    });
    if (registered.status !== 200) throw new Error(`the bench's endpoint was refused: ${registered.status} ${await registered.text()}`);
    const { id } = ((await registered.json()) as { data: { endpoint: { id: string } } }).data.endpoint;
    for (let i = 0; i < rounds; i++) {
      const got = receiver.next(`test delivery ${i}`);
      const tested = await fetch(`${base}/api/v1/webhooks/endpoints/${id}/test`, { method: "POST", headers });
      if (tested.status !== 200) throw new Error(`the bench's test event was refused: ${tested.status}`);
      await got;
    }
  } finally {
    await receiver.close();
  }
  const sorted = [...receiver.arrivals].sort((a, b) => a - b);
  return [0.5, 0.99].map((q) => ({
    name: `workerd: webhooks, a test event's write to the receiver's first byte, p${q * 100} (the object's alarm, loopback, ${rounds} rounds)`,
    unit: "ms",
    value: quantile(sorted, q),
  }));
}

async function throughput(pending: number) {
  let sent = 0;
  const instant: WebhookSender = {
    async send() {
      sent++;
      return { state: "answered", status: 200, retryAfter: null, body: "" };
    },
    check: async () => null,
  };
  const { deps, register, account } = await gateway(instant);
  const id = await register("https://hooks.example.cl/bench");
  await runDueJobs(deps.jobs, deps); // the endpoint's first look
  const job = await deps.jobs.get(account, id);
  if (!job) throw new Error("the bench's endpoint is not there");
  // The endpoint's own test events: every one of them is its to deliver.
  const events: NewEvent[] = Array.from({ length: pending }, () => ({ type: "webhook.test", data: { endpoint_id: id } }));
  const now = deps.clock.now().getTime();
  await deps.jobs.change(account, id, ["pendiente"], { ...job, due: now }, events, now);
  const busy = await cpuMs(async () => {
    while (sent < pending)
      if ((await runDueJobs(deps.jobs, deps)).ran === 0) throw new Error(`the endpoint stopped after ${sent} of ${pending}`);
  })();
  // A look at a feed with nothing new: the endpoint woken with nothing to send.
  const looks = 200;
  const idle = await cpuMs(async () => {
    for (let i = 0; i < looks; i++) {
      await deps.jobs.wake(account, "webhook:", deps.clock.now().getTime());
      await runDueJobs(deps.jobs, deps);
    }
  })();
  if (sent !== pending) throw new Error(`the bench's endpoint sent ${sent} of ${pending}`);
  return { perSecond: pending / (busy / 1000), idleUs: (idle / looks) * 1000 };
}

export async function webhookFigures(quick: boolean): Promise<WebhookFigure[]> {
  const sorted = await latencies(quick ? 20 : 100);
  const { perSecond, idleUs } = await throughput(1000);
  return [
    {
      name: `webhooks: state change to the receiver's first byte, p50 (Node timer, loopback, ${sorted.length} rounds)`,
      unit: "ms",
      value: quantile(sorted, 0.5),
      budget: null,
      gated: false,
    },
    {
      name: `webhooks: state change to the receiver's first byte, p99 (Node timer, loopback, ${sorted.length} rounds)`,
      unit: "ms",
      value: quantile(sorted, 0.99),
      budget: LATENCY_BUDGET_MS,
      gated: true,
    },
    {
      name: "webhooks: deliveries per CPU-second (one account, 1 000 events pending, an instant 200)",
      unit: "/s",
      value: perSecond,
      budget: null,
      gated: false,
    },
    {
      name: "webhooks: CPU of an endpoint's look at a feed with nothing new (woken, leased, read, written)",
      unit: "µs",
      value: idleUs,
      budget: null,
      gated: false,
    },
  ];
}
