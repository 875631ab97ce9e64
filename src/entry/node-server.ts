// The Node server: the same app on @hono/node-server, SQLite state, and /docs from public/.

import { readFile } from "node:fs/promises";
import { join, normalize } from "node:path";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
import { memorySessionStore } from "../adapters/memory/sessions.ts";
import { sqliteStores } from "../adapters/node/sqlite-stores.ts";
import { nodeTransport } from "../adapters/node/transport.ts";
import { createNodeWebhookSender } from "../adapters/node/webhook-sender.ts";
import { createApp } from "../app.ts";
import { clockFor, configFromEnv, consoleLogger } from "../config.ts";
import { ProxyFailure } from "../lib/address-policy.ts";
import { requestIdFor, serverTimingSince } from "../platform/request.ts";
import { securityHeaders } from "../platform/security-headers.ts";
import { seedDevToken } from "../platform/tokens.ts";
import type { Deps, Logger } from "../ports/deps.ts";
import type { JobQueue, JobStore } from "../ports/jobs.ts";
import { sandboxTransport } from "../sandbox/transport.ts";
import {
  EGRESS_AUTH_HEADER,
  EGRESS_PATH,
  EGRESS_PROXY_FAILURE_HEADER,
  egressAuthValid,
  egressBodyLimit,
  openEgressRequest,
  readBodyWithin,
  sealEgressAnswer,
} from "../sii/egress.ts";
import { type JobTimer, startJobTimer, wakingJobStore } from "./node-jobs.ts";

export interface NodeOptions {
  env: Record<string, string | undefined>;
  /** SQLite file; ":memory:" for tests. */
  database: string;
  publicDir: string;
  log?: Logger;
}

/** The Node deps; their job store is also the timer's queue, and wakes `onJob` when a job is created or changed. */
export async function createNodeDeps(options: NodeOptions, onJob: () => void = () => {}): Promise<Deps & { jobs: JobStore & JobQueue }> {
  const config = configFromEnv(options.env);
  const { db: _db, jobs, ...stores } = sqliteStores(options.database);
  const sii = config.upstream === "sandbox" ? sandboxTransport() : nodeTransport({ allowPrivateProxy: config.allowPrivateProxy });
  const deps = {
    ...stores,
    jobs: wakingJobStore(jobs, () => onJob()),
    sessions: memorySessionStore(),
    sii,
    webhooks: createNodeWebhookSender(),
    clock: clockFor(sii),
    log: options.log ?? consoleLogger,
    config,
  };
  if (config.devToken) await seedDevToken(deps.tokens, config.devToken, deps.clock.now());
  return deps;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
  ".json": "application/json",
  ".map": "application/json",
};

/** A refusal that also ends the connection, so an unread body is never drained. */
function refuse(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { connection: "close", ...headers } });
}

/**
 * The egress for Workers (certificate logins, proxies): sealed requests in, sealed answers out.
 * The signed header is checked before the body is read, and the body is read against a limit
 * while it streams: a stranger's body costs nothing, a Worker's is bounded.
 */
export function egressHandler(deps: Deps) {
  const seen = new Map<string, number>();
  const limit = egressBodyLimit(deps.config.maxBodyBytes);
  return async (request: Request): Promise<Response> => {
    const secret = deps.config.egressSecret;
    if (!secret) return new Response("not found", { status: 404 });
    if (!(await egressAuthValid(secret, request.headers.get(EGRESS_AUTH_HEADER), Date.now())))
      return refuse(401, "not signed with this EGRESS_SECRET, or too old");
    if (Number(request.headers.get("content-length") ?? 0) > limit) return refuse(413, `larger than ${limit} bytes`);
    const sealed = await readBodyWithin(request.body, limit);
    if (sealed === null) return refuse(413, `larger than ${limit} bytes`);
    const opened = await openEgressRequest(secret, sealed, Date.now(), seen);
    if (!opened.ok) return new Response(opened.reason, { status: opened.status });
    try {
      return new Response(await sealEgressAnswer(secret, await deps.sii.fetch(opened.request, opened.options)));
    } catch (err) {
      // A proxy failure goes back in the gateway's words only; the socket's text stays here.
      if (err instanceof ProxyFailure)
        return new Response(err.message, { status: 502, headers: { [EGRESS_PROXY_FAILURE_HEADER]: err.wireCode } });
      return new Response(err instanceof Error ? `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ""}` : "failed", {
        status: 502,
      });
    }
  };
}

/** What the Node server adds in front of the app: static files under public/ (as Workers serves its assets) and the egress. */
export function nodeFront(
  app: { fetch: (req: Request, env?: unknown) => Response | Promise<Response> },
  publicDir: string,
  egress?: (req: Request) => Promise<Response>,
) {
  const root = new Hono();
  root.use(securityHeaders);
  // The app sets X-Request-Id and Server-Timing on its answers; the files under /docs (and the
  // redirect) get them here.
  root.use(async (c, next) => {
    const started = performance.now();
    await next();
    if (!c.res.headers.has("X-Request-Id")) c.res.headers.set("X-Request-Id", requestIdFor(c.req.header("x-request-id")));
    if (!c.res.headers.has("Server-Timing")) c.res.headers.set("Server-Timing", serverTimingSince(started));
  });
  if (egress) root.post(EGRESS_PATH, (c) => egress(c.req.raw));
  root.get("/docs", (c) => c.redirect("/docs/", 307));
  root.get("/docs/*", async (c, next) => {
    // A malformed escape (`/docs/%`) is no file: the app answers it as an unknown path (404).
    let path: string;
    try {
      path = normalize(decodeURIComponent(new URL(c.req.url).pathname));
    } catch {
      return next();
    }
    if (path.endsWith("/")) path += "index.html";
    if (path.includes("..")) return next();
    const ext = path.slice(path.lastIndexOf("."));
    try {
      const body = await readFile(join(publicDir, path));
      return c.body(body, 200, { "content-type": TYPES[ext] ?? "application/octet-stream", "cache-control": "public, max-age=300" });
    } catch {
      return next();
    }
  });
  // The Node bindings (`incoming`) go along: the app reads the peer's address from them.
  root.all("*", (c) => app.fetch(c.req.raw, c.env));
  // API calls go straight to the app, which sets the same headers itself: the front's own router
  // and context would only add their cost to every call.
  return { fetch: (req: Request, env?: unknown) => (isApiUrl(req.url) ? app.fetch(req, env) : root.fetch(req, env)) };
}

/** Whether an absolute URL's path starts with `/api/` (no route of the front can match it). */
function isApiUrl(url: string): boolean {
  return url.startsWith("/api/", url.indexOf("/", url.indexOf("://") + 3));
}

/**
 * Limits of the Node HTTP server, each overridable from the environment. They bound what one
 * client can hold: slow headers (slowloris), slow bodies, idle keep-alive sockets, header floods
 * and the number of open connections. A TLS proxy in front adds per-IP rates (see docs/deploying.md).
 */
export interface ServerLimits {
  /** HTTP_HEADERS_TIMEOUT_MS: the whole header block must arrive within this (Node: 60 s). */
  headersTimeoutMs: number;
  /** HTTP_REQUEST_TIMEOUT_MS: the whole request, body included (Node: 300 s). */
  requestTimeoutMs: number;
  /** HTTP_KEEP_ALIVE_TIMEOUT_MS: an idle kept-alive socket is closed after this (Node: 5 s). */
  keepAliveTimeoutMs: number;
  /** HTTP_MAX_HEADERS: headers read per request (Node: 2000). */
  maxHeadersCount: number;
  /** HTTP_MAX_HEADER_BYTES: size of the header block (Node: 16 KiB). */
  maxHeaderBytes: number;
  /** HTTP_MAX_CONNECTIONS: open connections; more are closed on arrival (Node: unlimited). */
  maxConnections: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 20_000,
  // 32 MiB (MAX_BODY_BYTES) at 200 KiB/s; the egress's sealed bodies are up to about 57 MiB.
  requestTimeoutMs: 180_000,
  keepAliveTimeoutMs: 5_000,
  maxHeadersCount: 100,
  maxHeaderBytes: 16 * 1024,
  maxConnections: 1024,
};

const LIMIT_ENV: Record<keyof ServerLimits, string> = {
  headersTimeoutMs: "HTTP_HEADERS_TIMEOUT_MS",
  requestTimeoutMs: "HTTP_REQUEST_TIMEOUT_MS",
  keepAliveTimeoutMs: "HTTP_KEEP_ALIVE_TIMEOUT_MS",
  maxHeadersCount: "HTTP_MAX_HEADERS",
  maxHeaderBytes: "HTTP_MAX_HEADER_BYTES",
  maxConnections: "HTTP_MAX_CONNECTIONS",
};

export function serverLimits(env: Record<string, string | undefined>): ServerLimits {
  const limits = { ...DEFAULT_SERVER_LIMITS };
  for (const key of Object.keys(LIMIT_ENV) as (keyof ServerLimits)[]) {
    const name = LIMIT_ENV[key];
    const value = env[name];
    if (value === undefined || value === "") continue;
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number`);
    limits[key] = n;
  }
  return limits;
}

export async function createNodeServer(options: NodeOptions) {
  let timer: JobTimer | undefined;
  const deps = await createNodeDeps(options, () => timer?.wake());
  // Jobs run in every server process on the file; their leases keep each job to one at a time.
  timer = startJobTimer(deps.jobs, deps);
  const app = createApp(() => deps);
  const limits = serverLimits(options.env);
  const server = createAdaptorServer({
    fetch: nodeFront(app, options.publicDir, egressHandler(deps)).fetch,
    serverOptions: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      // How often Node looks for requests past their time limits (its default is 30 s).
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(limits.headersTimeoutMs / 2)),
    },
  }) as import("node:http").Server;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxHeadersCount = limits.maxHeadersCount;
  server.maxConnections = limits.maxConnections;
  server.on("close", () => void timer?.stop());
  return { deps, app, server, limits, jobs: timer };
}
