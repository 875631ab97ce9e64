// The Node entry: a real HTTP server with SQLite state, the development token, /docs from
// public/, the token CLI against it, and quota exactness over real connections.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { type AddressInfo, connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeServer, DEFAULT_SERVER_LIMITS } from "../../src/entry/node-server.ts";
import { ADMIN, registerProbes, tokenFor, writeBody, writePath } from "../support/app.ts";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
const node = process.execPath;
const devToken = "sii_dev_node_entry_test";
let base = "";
let close: () => void = () => {};
let started: Awaited<ReturnType<typeof createNodeServer>>;
let probes: ReturnType<typeof registerProbes>;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "sii-gw-node-"));
  started = await createNodeServer({
    env: { SII_UPSTREAM: "sandbox", ADMIN_TOKEN: ADMIN, DEV_API_TOKEN: devToken },
    database: join(dir, "state.sqlite"),
    publicDir: join(root, "public"),
    log: { log: () => {} },
  });
  probes = registerProbes(started.app);
  await new Promise<void>((resolve) => started.server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(started.server.address() as AddressInfo).port}`;
  close = () => started.server.close();
});
afterAll(() => close());

describe("node entry", () => {
  it("seeds the development token with every scope in sandbox mode", async () => {
    const res = await fetch(`${base}/api/v1/usage`, { headers: { "x-api-token": devToken } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { scopes: string[]; account: string } };
    expect(body.data.scopes.sort()).toEqual(["settings:read", "settings:write", "sii:read", "sii:write"]);
    expect(body.data.account).toBe("development");
  });

  it("serves the API reference page at /docs without auth", async () => {
    if (!existsSync(join(root, "public", "docs", "index.html"))) throw new Error("public/docs/index.html is missing");
    const redirect = await fetch(`${base}/docs`, { redirect: "manual" });
    expect(redirect.status).toBe(307);
    const page = await fetch(`${base}/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    // The page or a script of its own (served from /docs/ too) points Swagger UI at the document.
    const html = await page.text();
    const scripts = [...html.matchAll(/<script[^>]*\ssrc="\.\/([^"]+)"/g)].map((m) => m[1]);
    const own = await Promise.all(scripts.map(async (src) => (await fetch(`${base}/docs/${src}`)).text()));
    expect([html, ...own].join("\n")).toContain("/openapi.json");
    expect((await fetch(`${base}/docs/../package.json`)).status).toBe(404);
  });

  it("lets exactly the allowed number of 50 concurrent weighted calls through (SQLite quota)", async () => {
    const token = await tokenFor(started.deps, { plan: { daily_units: 20, monthly_units: 1000 } });
    const before = probes.calls.write;
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${base}${writePath}`, {
          method: "POST",
          headers: { "x-api-token": token.secret, "content-type": "application/json" },
          body: writeBody,
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(46);
    expect(probes.calls.write - before).toBe(4);
  });

  it("drives the admin API with the token CLI", async () => {
    const cli = (...args: string[]) =>
      run(node, ["--experimental-strip-types", "--no-warnings", "scripts/token.ts", ...args, "--url", base], {
        cwd: root,
        env: { ...process.env, ADMIN_TOKEN: ADMIN },
      });
    const created = await cli("create", "--name", "pos", "--account", "hooli", "--scopes", "sii:read", "--daily", "7");
    const secret = /API token: (\S+)/.exec(created.stdout)?.[1];
    const id = /^(tok_[0-9a-f]+)/m.exec(created.stdout)?.[1];
    expect(secret).toMatch(/^sii_/);
    expect(id).toBeDefined();
    expect((await fetch(`${base}/api/v1/usage`, { headers: { "x-api-token": secret! } })).status).toBe(200);

    const listed = await cli("list");
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).not.toContain(secret);

    await cli("revoke", id!);
    expect((await fetch(`${base}/api/v1/usage`, { headers: { "x-api-token": secret! } })).status).toBe(401);

    const refused = await cli("list", "--admin-token", "wrong").catch((err: { stderr: string; code: number }) => err);
    expect(refused).toMatchObject({ code: 2 });
    expect((refused as { stderr: string }).stderr).toContain("401");
  });
});

/** A raw connection to the server, with what it received and when it was closed. */
async function rawSocket(port: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  const seen = { data: "", closedAt: 0 };
  socket.on("data", (chunk) => {
    seen.data += chunk.toString("latin1");
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) =>
    socket.on("close", () => {
      seen.closedAt = performance.now();
      resolve();
    }),
  );
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  return { socket, seen, closed };
}

describe("node server limits", () => {
  it("sets the documented limits by default", () => {
    const server = started.server;
    expect(DEFAULT_SERVER_LIMITS).toEqual({
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 180_000,
      keepAliveTimeoutMs: 5_000,
      maxHeadersCount: 100,
      maxHeaderBytes: 16_384,
      maxConnections: 1024,
    });
    expect(server.headersTimeout).toBe(20_000);
    expect(server.requestTimeout).toBe(180_000);
    expect(server.keepAliveTimeout).toBe(5_000);
    expect(server.maxHeadersCount).toBe(100);
    expect(server.maxConnections).toBe(1024);
  });

  it("closes a connection whose headers trickle in (slowloris) and one over the connection cap", async () => {
    const limited = await createNodeServer({
      env: { SII_UPSTREAM: "sandbox", HTTP_HEADERS_TIMEOUT_MS: "400", HTTP_MAX_CONNECTIONS: "2" },
      database: ":memory:",
      publicDir: join(root, "public"),
      log: { log: () => {} },
    });
    await new Promise<void>((resolve) => limited.server.listen(0, "127.0.0.1", resolve));
    const port = (limited.server.address() as AddressInfo).port;
    try {
      const slow = await rawSocket(port);
      const started = performance.now();
      slow.socket.write("GET /api/v1/usage HTTP/1.1\r\nHost: gateway\r\n");
      const trickle = setInterval(() => slow.socket.write(`x-slow-${Math.random().toString(36).slice(2, 6)}: 1\r\n`), 100);
      await Promise.race([slow.closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      clearInterval(trickle);
      expect(slow.seen.closedAt, "closed by the server").toBeGreaterThan(0);
      expect(slow.seen.closedAt - started).toBeLessThan(3_000);
      expect(slow.seen.data).toMatch(/^HTTP\/1\.1 408/);

      const open = [await rawSocket(port), await rawSocket(port)];
      const third = await rawSocket(port);
      await Promise.race([third.closed, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      expect(third.seen.closedAt, "the third connection is closed on arrival").toBeGreaterThan(0);
      expect(third.seen.data).toBe("");
      for (const c of open) c.socket.destroy();
    } finally {
      limited.server.close();
    }
  });

  it("refuses a limit that is not a positive whole number", async () => {
    await expect(
      createNodeServer({ env: { HTTP_MAX_CONNECTIONS: "0" }, database: ":memory:", publicDir: "public", log: { log: () => {} } }),
    ).rejects.toThrow("HTTP_MAX_CONNECTIONS");
  });
});

describe("npm start", () => {
  it("starts on PORT, prints the development token, and answers with it", async () => {
    const port = String(20000 + Math.floor(Math.random() * 20000));
    const child = spawn(node, ["--experimental-strip-types", "--no-warnings", "src/entry/node.ts"], {
      cwd: root,
      env: { ...process.env, PORT: port, DATABASE_PATH: ":memory:", SII_UPSTREAM: "sandbox", DEV_API_TOKEN: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const token = await new Promise<string>((resolve, reject) => {
        let out = "";
        const timer = setTimeout(() => reject(new Error(`no token line within 50 s: ${out}`)), 50_000);
        child.stdout.on("data", (chunk) => {
          out += chunk;
          const match = /^Development API token: (\S+)$/m.exec(out);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
        child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/usage`, { headers: { "x-api-token": token } });
      expect(res.status).toBe(200);
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("refuses to run the sandbox on its published SECRET_KEY anywhere but loopback", async () => {
    const child = spawn(node, ["--experimental-strip-types", "--no-warnings", "src/entry/node.ts"], {
      cwd: root,
      env: { ...process.env, PORT: "0", HOST: "0.0.0.0", DATABASE_PATH: ":memory:", SII_UPSTREAM: "sandbox", SECRET_KEY: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(1);
    expect(err).toMatch(/Set SECRET_KEY to listen on 0\.0\.0\.0/);
  });
});
