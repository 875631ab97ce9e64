// Security headers on every answer (success, error, CSV download, OpenAPI, Node entry and its
// static files) and CORS: off by default, on only for the origins in CORS_ORIGINS.
import { mkdtempSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configFromEnv } from "../../src/config.ts";
import { createLambdaDeps } from "../../src/entry/lambda.ts";
import { createNodeServer } from "../../src/entry/node-server.ts";
import { parseCorsOrigins } from "../../src/platform/cors.ts";
import { DOCS_CSP } from "../../src/platform/security-headers.ts";
import { CreatedTokenEnvelope } from "../../src/routes/admin/schema.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { ADMIN, postJson, probeApp, tokenFor } from "../support/app.ts";

const company = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };

function expectSecure(res: Response, api = true) {
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  if (api) expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("server")).toBeNull();
  expect(res.headers.get("x-powered-by")).toBeNull();
}

describe("security headers", () => {
  it("are on API successes, every kind of error, CSV downloads and the OpenAPI document", async () => {
    const { app, deps } = probeApp();
    const { secret } = await tokenFor(deps);
    const answers = [
      await app.request("/api/v1/usage", { headers: { "x-api-token": secret } }),
      await app.request("/api/v1/usage"),
      await app.request("/api/v1/nowhere", { headers: { "x-api-token": secret } }),
      await app.request("/api/v1/usage", { method: "DELETE", headers: { "x-api-token": secret } }),
      await postJson(app, secret, "/api/v1/sii/rcv/compras/detalle/76192083-9/202405/0/REGISTRO?formato=csv", company),
      await app.request("/api/v1/sii/dte/caf/solicitar/76192083-9/33/10", {
        method: "POST",
        headers: { "x-api-token": secret, "content-type": "application/json" },
        body: "{not json",
      }),
      await app.request("/api/v1/sii/dte/caf/solicitar/76192083-9/33/10", {
        method: "POST",
        headers: { "x-api-token": secret, "content-type": "application/json" },
        body: "x".repeat(70 * 1024),
      }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 404, 405, 200, 422, 413]);
    expect(answers[4]?.headers.get("content-type")).toContain("text/csv");
    for (const res of answers) expectSecure(res);
    const openapi = await app.request("/openapi.json");
    expectSecure(openapi, false);
  });

  it("overrides a handler's own caching header on /api/ answers", async () => {
    const { app, deps } = probeApp();
    app.get("/api/v1/test/cached", (c) => c.json({ ok: true }, 200, { "Cache-Control": "public, max-age=3600", Server: "x/1" }));
    const { secret } = await tokenFor(deps);
    const res = await app.request("/api/v1/test/cached", { headers: { "x-api-token": secret } });
    expect(res.status).toBe(200);
    expectSecure(res);
  });

  it("the Node server adds no banner, and its static /docs files are not sniffed", async () => {
    const started = await createNodeServer({
      env: { SII_UPSTREAM: "sandbox" },
      database: join(mkdtempSync(join(tmpdir(), "sii-gw-sec-")), "state.sqlite"),
      publicDir: join(import.meta.dirname, "..", "..", "public"),
      log: { log: () => {} },
    });
    await new Promise<void>((resolve) => started.server.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(started.server.address() as AddressInfo).port}`;
      const api = await fetch(`${base}/api/v1/usage`);
      expect(api.status).toBe(401);
      expectSecure(api);
      const docs = await fetch(`${base}/docs/`);
      expect(docs.status).toBe(200);
      expectSecure(docs, false);
    } finally {
      started.server.close();
    }
  });
});

describe("CORS", () => {
  const site = "https://app.example.cl";
  const preflight = (origin: string) => ({
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "x-api-token, content-type" },
  });

  it("is off by default: no CORS header for any origin, and a preflight is not answered", async () => {
    const { app, deps } = probeApp();
    const { secret } = await tokenFor(deps);
    const res = await app.request("/api/v1/usage", { headers: { "x-api-token": secret, origin: site } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await app.request("/api/v1/usage", preflight(site));
    expect(pre.status).toBe(401);
    expect([...pre.headers.keys()].filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });

  it("answers preflights and exposes headers only to listed origins", async () => {
    const { app, deps } = probeApp(undefined, { corsOrigins: [site, "http://localhost:5173"] });
    const { secret } = await tokenFor(deps);

    const pre = await app.request("/api/v1/sii/dte/caf/solicitar/76192083-9/33/10", preflight(site));
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(site);
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("x-api-token");
    expect(pre.headers.get("vary")).toContain("Origin");

    const res = await app.request("/api/v1/usage", { headers: { "x-api-token": secret, origin: site } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(site);
    expect(res.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
    expect(res.headers.get("vary")).toContain("Origin");
    expectSecure(res);

    for (const other of ["https://evil.example", "https://app.example.cl.evil.example", "null"]) {
      const denied = await app.request("/api/v1/usage", preflight(other));
      expect(denied.status).toBe(401);
      expect(denied.headers.get("access-control-allow-origin")).toBeNull();
      const read = await app.request("/api/v1/usage", { headers: { "x-api-token": secret, origin: other } });
      expect(read.status).toBe(200);
      expect(read.headers.get("access-control-allow-origin")).toBeNull();
      expect(read.headers.get("vary")).toContain("Origin");
    }
  });

  it("CORS_ORIGINS takes exact origins and refuses anything else by name", () => {
    expect(configFromEnv({}).corsOrigins).toEqual([]);
    expect(configFromEnv({ CORS_ORIGINS: "https://app.example.cl, http://localhost:5173/" }).corsOrigins).toEqual([
      "https://app.example.cl",
      "http://localhost:5173",
    ]);
    for (const bad of ["*", "app.example.cl", "https://app.example.cl/path", "ftp://x.example", "https://*.example.cl"]) {
      expect(() => parseCorsOrigins(bad)).toThrow(/CORS_ORIGINS/);
    }
  });
});

describe("secrets in answers, /docs policy, start-up refusals", () => {
  const root = join(import.meta.dirname, "..", "..");

  it("an answer carrying a new token's secret is never cached, nor any other admin answer", async () => {
    const { app } = probeApp();
    const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
    const created = await app.request("/admin/v1/tokens", {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "n", account: "acme", scopes: ["sii:read"] }),
    });
    expect(created.status).toBe(201);
    expect((await answerOf(created, CreatedTokenEnvelope)).data.token).toBeTruthy();
    expect(created.headers.get("cache-control")).toBe("no-store");
    const listed = await app.request("/admin/v1/tokens", { headers: admin });
    expect(listed.headers.get("cache-control")).toBe("no-store");
    expect((await app.request("/admin/v1/tokens")).headers.get("cache-control")).toBe("no-store");
  });

  it("/docs runs only its own scripts and never in a frame, on Node and as Workers' static assets", async () => {
    const started = await createNodeServer({
      env: { SII_UPSTREAM: "sandbox" },
      database: ":memory:",
      publicDir: join(root, "public"),
      log: { log: () => {} },
    });
    await new Promise<void>((resolve) => started.server.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(started.server.address() as AddressInfo).port}`;
      for (const path of ["/docs/", "/docs/init.js", "/docs/nowhere.js"]) {
        const res = await fetch(`${base}${path}`);
        const csp = res.headers.get("content-security-policy") ?? "";
        expect(csp, path).toBe(DOCS_CSP);
        expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      }
      expect(DOCS_CSP).toContain("frame-ancestors 'none'");
      expect(/script-src 'self'(;|$)/.test(DOCS_CSP)).toBe(true);
      // Under that policy an inline script would not run: the page has none.
      const page = await (await fetch(`${base}/docs/`)).text();
      expect(page).toContain('<script src="./init.js"></script>');
      expect(page.match(/<script(?![^>]*\ssrc=)[^>]*>/g) ?? []).toEqual([]);
      // A malformed escape is an unknown path, not an internal error.
      for (const path of ["/docs/%", "/docs/%E0%A4%A", "/docs/a%zz"]) {
        const res = await fetch(`${base}${path}`);
        expect(res.status, path).toBe(404);
        expect((await errorOf(res)).error_code).toBe("HTTP_404");
      }
    } finally {
      started.server.close();
    }
    // Workers serves /docs from its static assets: the same policy in their _headers file.
    const rules = readFileSync(join(root, "public", "_headers"), "utf8");
    const docs = rules.slice(rules.indexOf("/docs/*"));
    expect(docs).toContain(`Content-Security-Policy: ${DOCS_CSP}\n`);
    expect(docs).toContain("X-Frame-Options: DENY");
  });

  it("an ADMIN_TOKEN shorter than 32 characters is refused at start-up, with a message that says so", async () => {
    expect(() => configFromEnv({ ADMIN_TOKEN: "x".repeat(31) })).toThrow(/ADMIN_TOKEN must be at least 32 characters/);
    expect(configFromEnv({ ADMIN_TOKEN: "x".repeat(32) }).adminToken).toBe("x".repeat(32));
    expect(configFromEnv({}).adminToken).toBeUndefined();
    await expect(
      createNodeServer({ env: { ADMIN_TOKEN: "admin" }, database: ":memory:", publicDir: join(root, "public"), log: { log: () => {} } }),
    ).rejects.toThrow(/ADMIN_TOKEN must be at least 32/);
    const lambda = createLambdaDeps({
      DYNAMODB_TABLE: "t",
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "a",
      AWS_SECRET_ACCESS_KEY: "b",
      SECRET_KEY: "lambda-secret-key-0123456789abcdefghij",
      ADMIN_TOKEN: "short",
    });
    await expect(lambda).rejects.toThrow(/ADMIN_TOKEN must be at least 32/);
  });

  it("deploys safely by default: wrangler.toml's default is live, only `npm run dev` picks the sandbox, Lambda needs its own SECRET_KEY", async () => {
    const toml = readFileSync(join(root, "wrangler.toml"), "utf8");
    const vars = toml.slice(toml.indexOf("[vars]"), toml.indexOf("\n[", toml.indexOf("[vars]") + 1));
    expect(vars).toMatch(/^SII_UPSTREAM = "live"$/m);
    // Live without a SECRET_KEY of its own does not start at all.
    expect(() => configFromEnv({ SII_UPSTREAM: "live" })).toThrow(/SECRET_KEY/);
    const dev = readFileSync(join(root, "scripts", "dev.mjs"), "utf8");
    expect(dev).toContain('"SII_UPSTREAM:sandbox"');
    await expect(
      createLambdaDeps({ DYNAMODB_TABLE: "t", AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" }),
    ).rejects.toThrow(/SECRET_KEY/);
  });
});
