// Cloudflare Workers entry: the primary deployment. State in KV and Durable Objects.

import type { IdempotencyLedger, QuotaCounter, SiiSessions } from "../adapters/cloudflare/durable-objects.ts";
import {
  durableIdempotencyStore,
  durableQuotaStore,
  durableSessionStore,
  kvCacheStore,
  kvSettingsStore,
  kvTokenStore,
} from "../adapters/cloudflare/stores.ts";
import { workerTransport } from "../adapters/cloudflare/transport.ts";
import { createApp } from "../app.ts";
import { configFromEnv, consoleLogger, systemClock } from "../config.ts";
import { seedDevToken } from "../platform/tokens.ts";
import type { Deps } from "../ports.ts";
import { sandboxTransport } from "../sii/transport.ts";

export { IdempotencyLedger, QuotaCounter, SiiSessions } from "../adapters/cloudflare/durable-objects.ts";

export interface WorkerEnv {
  TOKENS: KVNamespace;
  SETTINGS: KVNamespace;
  CACHE: KVNamespace;
  QUOTA: DurableObjectNamespace<QuotaCounter>;
  IDEMPOTENCY: DurableObjectNamespace<IdempotencyLedger>;
  SESSIONS: DurableObjectNamespace<SiiSessions>;
  SII_UPSTREAM?: string;
  ADMIN_TOKEN?: string;
  DEV_API_TOKEN?: string;
  MAX_BODY_BYTES?: string;
  SECRET_KEY?: string;
  EGRESS_URL?: string;
  EGRESS_SECRET?: string;
}

// Bindings are stable for an isolate's life, so the deps are built once per env object.
const built = new WeakMap<WorkerEnv, Promise<Deps>>();

async function buildDeps(env: WorkerEnv): Promise<Deps> {
  const config = configFromEnv(env as unknown as Record<string, unknown>);
  const deps: Deps = {
    tokens: kvTokenStore(env.TOKENS),
    settings: kvSettingsStore(env.SETTINGS),
    quota: durableQuotaStore(env.QUOTA),
    idempotency: durableIdempotencyStore(env.IDEMPOTENCY),
    sessions: durableSessionStore(env.SESSIONS),
    cache: kvCacheStore(env.CACHE),
    sii:
      config.upstream === "sandbox"
        ? sandboxTransport()
        : workerTransport({ url: config.egressUrl, secret: config.egressSecret, allowPrivateProxy: config.allowPrivateProxy }),
    clock: systemClock,
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
    deps.catch(() => built.delete(env));
    built.set(env, deps);
  }
  return deps;
}

const app = createApp((c) => workerDeps(c.env as WorkerEnv));

export default { fetch: app.fetch } satisfies ExportedHandler<WorkerEnv>;
