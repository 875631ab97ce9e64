// The Node server: the same app on @hono/node-server, SQLite state, and /docs from public/.
import { readFile } from "node:fs/promises";
import { join, normalize } from "node:path";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
import { memorySessionStore } from "../adapters/memory/stores.ts";
import { sqliteStores } from "../adapters/node/sqlite-stores.ts";
import { nodeTransport } from "../adapters/node/transport.ts";
import { createApp } from "../app.ts";
import { configFromEnv, consoleLogger, systemClock } from "../config.ts";
import { securityHeaders } from "../platform/security-headers.ts";
import { seedDevToken } from "../platform/tokens.ts";
import type { Deps, Logger } from "../ports.ts";
import { EGRESS_PATH, openEgressRequest, sealEgressAnswer } from "../sii/egress.ts";
import { sandboxTransport } from "../sii/transport.ts";

export interface NodeOptions {
  env: Record<string, string | undefined>;
  /** SQLite file; ":memory:" for tests. */
  database: string;
  publicDir: string;
  log?: Logger;
}

export async function createNodeDeps(options: NodeOptions): Promise<Deps> {
  const config = configFromEnv(options.env);
  const { db: _db, ...stores } = sqliteStores(options.database);
  const deps: Deps = {
    ...stores,
    sessions: memorySessionStore(),
    sii: config.upstream === "sandbox" ? sandboxTransport() : nodeTransport({ allowPrivateProxy: config.allowPrivateProxy }),
    clock: systemClock,
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

/** The egress for Workers (certificate logins, proxies): sealed requests in, sealed answers out. */
export function egressHandler(deps: Deps) {
  const seen = new Map<string, number>();
  return async (request: Request): Promise<Response> => {
    const secret = deps.config.egressSecret;
    if (!secret) return new Response("not found", { status: 404 });
    const opened = await openEgressRequest(secret, await request.text(), Date.now(), seen);
    if (!opened.ok) return new Response(opened.reason, { status: opened.status });
    try {
      return new Response(await sealEgressAnswer(secret, await deps.sii.fetch(opened.request, opened.options)));
    } catch (err) {
      return new Response(err instanceof Error ? `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ""}` : "failed", {
        status: 502,
      });
    }
  };
}

/** What the Node server adds in front of the app: static files under public/ (as Workers serves its assets) and the egress. */
export function nodeFront(
  app: { fetch: (req: Request) => Response | Promise<Response> },
  publicDir: string,
  egress?: (req: Request) => Promise<Response>,
) {
  const root = new Hono();
  root.use(securityHeaders);
  if (egress) root.post(EGRESS_PATH, (c) => egress(c.req.raw));
  root.get("/docs", (c) => c.redirect("/docs/", 307));
  root.get("/docs/*", async (c, next) => {
    let path = normalize(decodeURIComponent(new URL(c.req.url).pathname));
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
  root.all("*", (c) => app.fetch(c.req.raw));
  // API calls go straight to the app, which sets the same headers itself: the front's own router
  // and context would only add their cost to every call.
  return { fetch: (req: Request, env?: unknown) => (isApiUrl(req.url) ? app.fetch(req) : root.fetch(req, env)) };
}

/** Whether an absolute URL's path starts with `/api/` (no route of the front can match it). */
function isApiUrl(url: string): boolean {
  return url.startsWith("/api/", url.indexOf("/", url.indexOf("://") + 3));
}

export async function createNodeServer(options: NodeOptions) {
  const deps = await createNodeDeps(options);
  const app = createApp(() => deps);
  const server = createAdaptorServer({ fetch: nodeFront(app, options.publicDir, egressHandler(deps)).fetch });
  return { deps, app, server };
}
