// Cloudflare Workers entry: the primary deployment. State in KV and Durable Objects; jobs in a Durable
// Object per account (worker-jobs.ts), run from its alarm, with a cron that re-arms a lost one; received
// documents in another per account (worker-inbox.ts).

import { durableFolioLedgerStore } from "../adapters/cloudflare/durable-folio-ledger.ts";
import { durableIdempotencyStore } from "../adapters/cloudflare/durable-idempotency.ts";
import { durableInboxStore } from "../adapters/cloudflare/durable-inbox.ts";
import { durableJobStore, rearmJobAccounts } from "../adapters/cloudflare/durable-jobs.ts";
import type { FolioLedger, IdempotencyLedger, QuotaCounter, SiiSessions } from "../adapters/cloudflare/durable-objects.ts";
import { durableQuotaStore } from "../adapters/cloudflare/durable-quota.ts";
import { durableSessionStore } from "../adapters/cloudflare/durable-sessions.ts";
import { kvCacheStore } from "../adapters/cloudflare/kv-cache.ts";
import { kvSettingsStore } from "../adapters/cloudflare/kv-settings.ts";
import { kvTokenStore } from "../adapters/cloudflare/kv-tokens.ts";
import { workerTransport } from "../adapters/cloudflare/transport.ts";
import { createWorkerWebhookSender } from "../adapters/cloudflare/webhook-sender.ts";
import { createApp } from "../app.ts";
import { clockFor, configFromEnv, consoleLogger, WORKERS_MAX_BODY_BYTES } from "../config.ts";
import { isLoopbackHost } from "../lib/address-policy.ts";
import { requestIdFor, serverTimingSince } from "../platform/request.ts";
import { DOCS_CSP } from "../platform/security-headers.ts";
import { seedDevToken } from "../platform/tokens.ts";
import type { Deps } from "../ports/deps.ts";
import type { SiiTransport } from "../ports/transport.ts";
import { sandboxTransport } from "../sandbox/transport.ts";
import type { AccountInbox } from "./worker-inbox.ts";
import { AccountJobsObject } from "./worker-jobs.ts";

export { FolioLedger, IdempotencyLedger, QuotaCounter, SiiSessions } from "../adapters/cloudflare/durable-objects.ts";
export { AccountInbox } from "./worker-inbox.ts";

export interface WorkerEnv {
  TOKENS: KVNamespace;
  SETTINGS: KVNamespace;
  CACHE: KVNamespace;
  QUOTA: DurableObjectNamespace<QuotaCounter>;
  IDEMPOTENCY: DurableObjectNamespace<IdempotencyLedger>;
  SESSIONS: DurableObjectNamespace<SiiSessions>;
  FOLIOS: DurableObjectNamespace<FolioLedger>;
  JOBS: DurableObjectNamespace<AccountJobs>;
  INBOX: DurableObjectNamespace<AccountInbox>;
  SII_UPSTREAM?: string;
  ADMIN_TOKEN?: string;
  DEV_API_TOKEN?: string;
  MAX_BODY_BYTES?: string;
  SECRET_KEY?: string;
  EGRESS_URL?: string;
  EGRESS_SECRET?: string;
  /** The static files under public/ (wrangler.toml `[assets]`). */
  ASSETS?: Fetcher;
}

// Bindings are stable for an isolate's life, so the deps are built once per env object.
const built = new WeakMap<WorkerEnv, Promise<Deps>>();

/**
 * The sandbox is one per isolate (docs/sandbox.md), not one per env object: a jobs object's env is not
 * the Worker's, and its alarm must query the simulator that took the envelope, on the clock that
 * POST /sandbox/v1/clock moved, whenever the two share an isolate (wrangler dev, the tests).
 */
let isolateSandbox: SiiTransport | undefined;
function sandboxOfIsolate(): SiiTransport {
  isolateSandbox ??= sandboxTransport();
  return isolateSandbox;
}

async function buildDeps(env: WorkerEnv): Promise<Deps> {
  const config = configFromEnv(env as unknown as Record<string, unknown>, WORKERS_MAX_BODY_BYTES);
  const sii =
    config.upstream === "sandbox"
      ? sandboxOfIsolate()
      : workerTransport({ url: config.egressUrl, secret: config.egressSecret, allowPrivateProxy: config.allowPrivateProxy });
  const deps: Deps = {
    tokens: kvTokenStore(env.TOKENS),
    settings: kvSettingsStore(env.SETTINGS),
    quota: durableQuotaStore(env.QUOTA),
    idempotency: durableIdempotencyStore(env.IDEMPOTENCY),
    sessions: durableSessionStore(env.SESSIONS),
    cache: kvCacheStore(env.CACHE),
    folios: durableFolioLedgerStore(env.FOLIOS),
    jobs: durableJobStore(env.JOBS),
    inbox: durableInboxStore(env.INBOX),
    sii,
    webhooks: createWorkerWebhookSender(),
    // The sandbox's clock may run ahead (POST /sandbox/v1/clock): job due times follow it, as on Node.
    clock: clockFor(sii),
    log: consoleLogger,
    config,
  };
  if (config.devToken) await seedDevToken(deps.tokens, config.devToken, deps.clock.now());
  return deps;
}

export function workerDeps(env: WorkerEnv): Promise<Deps> {
  let deps = built.get(env);
  if (!deps) {
    deps = buildDeps(env);
    deps.catch((err: unknown) => {
      built.delete(env);
      // A refused configuration (a short ADMIN_TOKEN, live without SECRET_KEY) says why in the log.
      consoleLogger.log({ level: "error", msg: "configuration refused", error: err instanceof Error ? err.message : String(err) });
    });
    built.set(env, deps);
  }
  return deps;
}

/** One per account: its jobs and events, run from its alarm with the Worker's deps. */
export class AccountJobs extends AccountJobsObject<WorkerEnv> {
  protected deps(): Promise<Deps> {
    return workerDeps(this.env);
  }
}

/**
 * The sandbox's built-in SECRET_KEY is published in the source: a Worker reachable from outside
 * that ran on it would seal whatever it stores with a known key. Without a SECRET_KEY of its own,
 * only `wrangler dev` on loopback runs; a deployed Worker answers 500 and says why in its log.
 */
function refusedWithoutSecretKey(request: Request, env: WorkerEnv): Response | null {
  if (env.SECRET_KEY || isLoopbackHost(new URL(request.url).hostname)) return null;
  // Every answer carries a request id, this one too: the log line and the answer share it.
  const requestId = requestIdFor(request.headers.get("x-request-id"));
  consoleLogger.log({
    level: "error",
    msg: "configuration refused: set SECRET_KEY (wrangler secret put SECRET_KEY); only wrangler dev on loopback runs without it",
    request_id: requestId,
  });
  const body = {
    success: false,
    error_code: "INTERNAL_ERROR",
    message: "The gateway is not configured (SECRET_KEY is missing); see its log",
    request_id: requestId,
    timestamp: new Date().toISOString(),
  };
  const headers = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "X-Request-Id": requestId };
  return Response.json(body, { status: 500, headers });
}

/**
 * /docs and its files: wrangler.toml has the Worker run first there (`run_worker_first`), so they
 * carry an X-Request-Id and Server-Timing like every other answer; the headers public/_headers gives them are set
 * here too, as the Node front sets them. A file that does not exist is the app's 404.
 */
async function docsAsset(request: Request, env: WorkerEnv): Promise<Response | null> {
  if (!env.ASSETS) return null;
  const path = new URL(request.url).pathname;
  if (path !== "/docs" && !path.startsWith("/docs/")) return null;
  const asset = await env.ASSETS.fetch(request);
  if (asset.status === 404) return null;
  const res = new Response(asset.body, asset);
  res.headers.set("X-Request-Id", requestIdFor(request.headers.get("x-request-id")));
  res.headers.set("X-Content-Type-Options", "nosniff");
  res.headers.set("Content-Security-Policy", DOCS_CSP);
  res.headers.set("X-Frame-Options", "DENY");
  return res;
}

const app = createApp((c) => workerDeps(c.env as WorkerEnv));

export default {
  // The reference page holds no state and no secret: it is served whatever the configuration.
  fetch: async (request, env, ctx) => {
    const started = performance.now();
    const own = (await docsAsset(request, env)) ?? refusedWithoutSecretKey(request, env);
    if (!own) return app.fetch(request, env, ctx);
    // The app times its own answers; these two never reach it.
    own.headers.set("Server-Timing", serverTimingSince(started));
    return own;
  },
  /**
   * Every 5 minutes (wrangler.toml `[triggers]`): re-arms the jobs object of each account with live jobs,
   * in case one lost its alarm. Each object's alarm is what runs its jobs; this only makes sure one is set.
   */
  scheduled: async (_controller, env) => {
    const { rearmed, failed } = await rearmJobAccounts(env.JOBS, env.SETTINGS);
    if (failed) consoleLogger.log({ level: "warn", msg: "job objects not re-armed", rearmed, failed });
  },
} satisfies ExportedHandler<WorkerEnv>;
