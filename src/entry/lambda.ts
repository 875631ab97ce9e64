// AWS Lambda entry: `handler` serves the app (API Gateway v2 / function URLs) with its state in DynamoDB;
// `scheduled` (an EventBridge schedule, every minute: template.yaml) runs the jobs due, in rounds, for
// less than a minute, so one invocation ends before the next begins and what is left waits a minute at most.

import { handle } from "hono/aws-lambda";
import { createDynamoStores } from "../adapters/lambda/dynamodb-stores.ts";
import { memorySessionStore } from "../adapters/memory/sessions.ts";
import { nodeTransport } from "../adapters/node/transport.ts";
import { createNodeWebhookSender } from "../adapters/node/webhook-sender.ts";
import { createApp } from "../app.ts";
import { clockFor, configFromEnv, consoleLogger } from "../config.ts";
import { seedDevToken } from "../platform/tokens.ts";
import type { Deps } from "../ports/deps.ts";
import type { JobQueue, JobStore } from "../ports/jobs.ts";
import { sandboxTransport } from "../sandbox/transport.ts";
import { JOBS_PER_ROUND, runDueJobs } from "../services/job-runner.ts";

/** The Lambda deps; their job store is also the scheduled runner's queue. */
export async function createLambdaDeps(env: Record<string, string | undefined>): Promise<Deps & { jobs: JobStore & JobQueue }> {
  // A function is reachable from outside: the sandbox's built-in key is published in the source.
  if (!env.SECRET_KEY) throw new Error("Lambda needs SECRET_KEY (at least 32 characters), in sandbox mode too");
  const config = configFromEnv(env);
  const table = env.DYNAMODB_TABLE;
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!table || !region || !env.AWS_ACCESS_KEY_ID || !env.AWS_SECRET_ACCESS_KEY) {
    throw new Error("Lambda needs DYNAMODB_TABLE, AWS_REGION and AWS credentials in its environment");
  }
  const stores = createDynamoStores({
    table,
    region,
    endpoint: env.DYNAMODB_ENDPOINT,
    accessKeyId: env.AWS_ACCESS_KEY_ID,
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
    sessionToken: env.AWS_SESSION_TOKEN,
  });
  // SII sessions are a per-instance cache here: a cold instance logs in again.
  const sii = config.upstream === "sandbox" ? sandboxTransport() : nodeTransport({ allowPrivateProxy: config.allowPrivateProxy });
  const deps = {
    ...stores,
    sessions: memorySessionStore(),
    sii,
    webhooks: createNodeWebhookSender(),
    // The sandbox's clock can be moved (its jobs' cadence with it): the same clock as the Node server's.
    clock: clockFor(sii),
    log: consoleLogger,
    config,
  };
  if (config.devToken) await seedDevToken(deps.tokens, config.devToken, deps.clock.now());
  return deps;
}

/** The deps of an instance, made once on first use; a refused configuration says why in the log. */
function depsOnce(env: Record<string, string | undefined>) {
  let deps: ReturnType<typeof createLambdaDeps> | undefined;
  return () => {
    deps ??= createLambdaDeps(env).catch((err: unknown) => {
      consoleLogger.log({ level: "error", msg: "configuration refused", error: err instanceof Error ? err.message : String(err) });
      throw err;
    });
    return deps;
  };
}

export function createLambdaHandler(env: Record<string, string | undefined>) {
  // The cold start's answer to a refused configuration is a bare 500.
  return handle(createApp(depsOnce(env)));
}

/**
 * How long one scheduled invocation starts rounds: under the function's timeout (template.yaml) and the
 * schedule's minute, so two invocations seldom overlap (and when they do, the leases keep each job to one).
 */
export const SWEEP_MS = 50_000;

export interface SweepResult {
  rounds: number;
  ran: number;
  lost: number;
}

/** Rounds of the runner while the last one was full (more may be due) and `budgetMs` has not passed. */
export async function sweepJobs(queue: JobQueue, deps: Deps, budgetMs = SWEEP_MS): Promise<SweepResult> {
  const started = performance.now();
  const total: SweepResult = { rounds: 0, ran: 0, lost: 0 };
  for (;;) {
    const round = await runDueJobs(queue, deps);
    total.rounds++;
    total.ran += round.ran;
    total.lost += round.lost;
    // A round that was not full left nothing due; what falls due later is the next schedule's.
    if (round.ran + round.lost < JOBS_PER_ROUND || performance.now() - started >= budgetMs) return total;
  }
}

/** The EventBridge schedule's handler: its event says nothing the sweep needs. */
export function createScheduledHandler(env: Record<string, string | undefined>) {
  const deps = depsOnce(env);
  return async (_event?: unknown): Promise<SweepResult> => {
    const ready = await deps();
    try {
      const result = await sweepJobs(ready.jobs, ready);
      ready.log.log({ level: "info", msg: "jobs swept", ...result });
      return result;
    } catch (err) {
      // Thrown again so the invocation counts as failed; the jobs it held are taken again when their leases run out.
      ready.log.log({ level: "error", msg: "job sweep failed", error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  };
}

export const handler = createLambdaHandler(process.env);
export const scheduled = createScheduledHandler(process.env);
