// The Node server: the same app on @hono/node-server, SQLite state, and /docs from public/.
import { readFile } from "node:fs/promises";
import { join, normalize } from "node:path";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
import { memorySessionStore } from "../adapters/memory/stores.ts";
import { sqliteStores } from "../adapters/node/sqlite-stores.ts";
import { createApp } from "../app.ts";
import { configFromEnv, consoleLogger, systemClock } from "../config.ts";
import { seedDevToken } from "../platform/tokens.ts";
import type { Deps, Logger } from "../ports.ts";
import { createTransport } from "../sii/transport.ts";

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
    sii: createTransport(config.upstream),
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

/** Static files under public/, as Workers serves them from its assets; everything else goes to the app. */
export function withStaticFiles(app: { fetch: (req: Request) => Response | Promise<Response> }, publicDir: string) {
  const root = new Hono();
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
  return root;
}

export async function createNodeServer(options: NodeOptions) {
  const deps = await createNodeDeps(options);
  const app = createApp(() => deps);
  return { deps, app, server: createAdaptorServer({ fetch: withStaticFiles(app, options.publicDir).fetch }) };
}
