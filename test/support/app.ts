// Test harness: the real app over chosen stores, plus two probe operations that stand in for
// SII operations so platform behaviour (scopes, quota, idempotency, dry_run, refunds) can be
// exercised before those operations exist. They declare a scope and weight as real operations do.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { memoryCacheStore } from "../../src/adapters/memory/cache.ts";
import { memoryFolioLedgerStore } from "../../src/adapters/memory/folio-ledger.ts";
import { memoryInboxStore } from "../../src/adapters/memory/inbox.ts";
import { memoryJobStore } from "../../src/adapters/memory/jobs.ts";
import { memorySessionStore } from "../../src/adapters/memory/sessions.ts";
import { memoryStores } from "../../src/adapters/memory/stores.ts";
import { createApp } from "../../src/app.ts";
import type { AppEnv } from "../../src/platform/context.ts";
import { isDryRun } from "../../src/platform/dry-run.ts";
import { ok } from "../../src/platform/envelope.ts";
import { ApiError } from "../../src/platform/errors.ts";
import { registerOperation } from "../../src/platform/operation.ts";
import { Ambiente, DryRun, Rut } from "../../src/platform/params.ts";
import { envelope, jsonContent } from "../../src/platform/schemas.ts";
import { issueToken } from "../../src/platform/tokens.ts";
import type { Plan, Scope } from "../../src/ports/access.ts";
import type { Deps, LogRecord } from "../../src/ports/deps.ts";
import type { InboxStore } from "../../src/ports/inbox.ts";
import type { JobQueue, JobStore } from "../../src/ports/jobs.ts";
import type {
  CacheStore,
  FolioLedgerStore,
  IdempotencyStore,
  QuotaStore,
  SessionStore,
  SettingsStore,
  TokenStore,
} from "../../src/ports/stores.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { SANDBOX_TAXPAYERS } from "../../src/sandbox/taxpayers.ts";
import { sandboxTransport } from "../../src/sandbox/transport.ts";
import { recordingWebhookSender } from "./webhook-sender.ts";

export const ADMIN = "test-admin-secret-of-at-least-32-characters";

export interface Stores {
  tokens: TokenStore;
  quota: QuotaStore;
  settings: SettingsStore;
  idempotency: IdempotencyStore;
  sessions?: SessionStore;
  cache?: CacheStore;
  folios?: FolioLedgerStore;
  jobs?: JobStore & JobQueue;
  inbox?: InboxStore;
}

/**
 * The sandbox taxpayers' secrets: every test that runs through this harness fails the moment one
 * of them (claves, and a piece of each private key and PFX) reaches a log line, a value handed to
 * a store, or an error answer.
 */
const SECRETS: string[] = [
  ...SANDBOX_TAXPAYERS.map((t) => t.clave),
  ...Object.values(SANDBOX_TAXPAYER_CERTS).flatMap((c) => [
    c.keyPem.replace(/-----[^-]+-----|\s+/g, "").slice(100, 160),
    c.legacyPfxBase64.slice(200, 260),
  ]),
];

/** The taxpayer secret `text` holds, if any. */
export function secretIn(text: string): string | undefined {
  // Keys and PFX travel as multi-line base64: compare without line breaks and spaces too.
  const flat = text.replace(/\\[nr]|\s/g, "");
  return SECRETS.find((secret) => text.includes(secret) || flat.includes(secret));
}

function guardedLog(logs: LogRecord[]): (record: LogRecord) => void {
  return (record) => {
    const line = JSON.stringify(record);
    if (secretIn(line)) throw new Error(`a taxpayer secret reached the log: ${line.slice(0, 200)}`);
    logs.push(record);
  };
}

/** A store that fails the call the moment a taxpayer secret is handed to it (what would be kept at rest). */
function guardedStore<T extends object>(name: string, store: T): T {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const text = JSON.stringify(args, (_k, v) => (v instanceof Uint8Array ? new TextDecoder("latin1").decode(v) : v));
        if (text && secretIn(text)) throw new Error(`a taxpayer secret was handed to the ${name} store: ${String(prop)}`);
        return value.apply(target, args);
      };
    },
  });
}

/** Error answers are checked too: none may carry a taxpayer secret (a success may: a CAF holds its own key). */
function guardedApp<A extends { request: (...args: never[]) => Response | Promise<Response> }>(app: A): A {
  const request = app.request.bind(app) as (...args: unknown[]) => Response | Promise<Response>;
  (app as { request: unknown }).request = async (...args: unknown[]) => {
    const res = await request(...args);
    if (res.status >= 400 && /json|text/.test(res.headers.get("content-type") ?? "")) {
      const text = await res.clone().text();
      if (secretIn(text)) throw new Error(`a taxpayer secret reached an error answer: ${text.slice(0, 200)}`);
    }
    return res;
  };
  return app;
}

export function testDeps(stores: Stores = memoryStores(), config: Partial<Deps["config"]> = {}) {
  const logs: LogRecord[] = [];
  const all = {
    sessions: memorySessionStore(),
    cache: memoryCacheStore(),
    folios: memoryFolioLedgerStore(),
    jobs: memoryJobStore(),
    inbox: memoryInboxStore(),
    ...stores,
  };
  const guarded = Object.fromEntries(Object.entries(all).map(([name, store]) => [name, guardedStore(name, store)])) as typeof all;
  const deps: Deps = {
    ...guarded,
    sii: sandboxTransport(),
    webhooks: recordingWebhookSender(),
    // The gateway's clock follows the sandbox's (POST /sandbox/v1/clock), as config.ts clockFor has it.
    clock: { now: () => new Date(Date.now() + (deps.sii.sandbox?.clockOffset() ?? 0)) },
    log: { log: guardedLog(logs) },
    config: {
      upstream: "sandbox",
      adminToken: ADMIN,
      maxBodyBytes: 64 * 1024,
      secretKey: "test-secret-key-with-enough-characters-0123",
      allowPrivateProxy: true,
      ...config,
    },
  };
  return { deps, logs };
}

export interface ProbeState {
  /** Calls that reached the probe handlers, by operation. */
  calls: { write: number; read: number };
  /**
   * What the write probe answers with next: a status to fail with (400: a refusal of its own, as
   * a route refuses input), a delay, or one call to the SII before it answers.
   */
  behaviour: { failWith?: 400 | 500 | 502 | 503; delayMs?: number; callSii?: boolean };
}

/**
 * Stand-ins for SII operations on test-only paths: a state-changing POST (`sii:write`, weight 5,
 * idempotent) and a GET read (`sii:read`, weight 1), with behaviour the tests control.
 */
const PROBE_WRITE = "/api/v1/test/probes/write/{contribuyente}";
const PROBE_READ = "/api/v1/test/probes/read/{categoria}";
/** What both probes answer: which call of theirs this was. */
export const ProbeAnswer = envelope(z.object({ n: z.number() }));
/** The read probe's path with a parameter. */
export const readPath = "/api/v1/test/probes/read/livianos";

export function registerProbes(app: OpenAPIHono<AppEnv>): ProbeState {
  const state: ProbeState = { calls: { write: 0, read: 0 }, behaviour: {} };
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: PROBE_WRITE,
      request: {
        params: z.object({ contribuyente: Rut }),
        query: z.object({ ambiente: Ambiente, dry_run: DryRun }),
        body: {
          required: true,
          content: { "application/json": { schema: z.object({ auth: z.object({ cert: z.object({ "cert-data": z.string() }) }) }) } },
        },
      },
      responses: { 200: jsonContent(ProbeAnswer, "ok") },
    }),
    { scope: "sii:write", weight: 5, write: true },
    async (c) => {
      if (isDryRun(c)) return ok(c, { n: 0 }, "preview");
      state.calls.write++;
      const n = state.calls.write;
      if (state.behaviour.delayMs) await new Promise((r) => setTimeout(r, state.behaviour.delayMs));
      if (state.behaviour.callSii) await (await c.get("deps").sii.fetch(new Request("https://palena.sii.cl/probe"))).arrayBuffer();
      const fail = state.behaviour.failWith;
      if (fail === 400) throw new ApiError(400, "VALIDATION_ERROR", "contribuyente: refused by the probe");
      if (fail === 503) throw new ApiError(503, "SII_UNAVAILABLE", "SII en mantencion", { headers: { "Retry-After": "300" } });
      if (fail === 502) throw new ApiError(502, "SII_GATEWAY_ERROR", "SII rechazo", { details: { glosa: "x" } });
      if (fail === 500) throw new Error("boom with secret clave=hunter2");
      return ok(c, { n });
    },
  );
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: PROBE_READ,
      request: { params: z.object({ categoria: z.string() }) },
      responses: { 200: jsonContent(ProbeAnswer, "ok") },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => ok(c, { n: ++state.calls.read }),
  );
  return state;
}

export function probeApp(stores?: Stores, config?: Partial<Deps["config"]>) {
  const { deps, logs } = testDeps(stores, config);
  const app = guardedApp(createApp(() => deps));
  const probes = registerProbes(app);
  return { app, deps, logs, probes };
}

/**
 * Gives `deps` a sandbox whose clock the answered function moves on by `ms`: a test reads what the
 * SII shows once time has passed (an envelope's steps) without waiting for it.
 */
export function sandboxClock(deps: Deps): (ms: number) => void {
  let skew = 0;
  deps.sii = sandboxTransport(createDefaultSandbox({ now: () => Date.now() + skew }));
  return (ms) => {
    skew += ms;
  };
}

export async function tokenFor(
  deps: Deps,
  options: { scopes?: Scope[]; plan?: Plan; account?: string } = {},
): Promise<{ secret: string; id: string }> {
  const { secret, record } = await issueToken(
    deps.tokens,
    {
      name: "test",
      account: options.account ?? "acme",
      scopes: options.scopes ?? ["sii:read", "sii:write", "settings:read", "settings:write"],
      plan: options.plan ?? { daily_units: 1000, monthly_units: 10000 },
    },
    deps.clock.now(),
  );
  return { secret, id: record.id };
}

/** The write probe's path with a taxpayer. */
export const writePath = "/api/v1/test/probes/write/76192083-9";
export const writeBody = JSON.stringify({ auth: { cert: { "cert-data": "-----BEGIN CERTIFICATE-----" } } });

/** POSTs a JSON body to the app with an API token (and any extra headers). */
export async function postJson(
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  secret: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return app.request(path, {
    method: "POST",
    headers: { "x-api-token": secret, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}
