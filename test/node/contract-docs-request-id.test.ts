// Every answer carries X-Request-Id, the /docs page and its files included (Node front).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { nodeFront } from "../../src/entry/node-server.ts";
import { testDeps } from "../support/app.ts";

const publicDir = join(import.meta.dirname, "../../public");

function front() {
  const { deps } = testDeps();
  return nodeFront(
    createApp(() => deps),
    publicDir,
  );
}

describe("X-Request-Id on /docs", () => {
  it("is on the page, its scripts, the redirect to it and a missing file, each a new id", async () => {
    const { fetch } = front();
    const ids = new Set<string>();
    for (const [path, status] of [
      ["/docs/", 200],
      ["/docs/init.js", 200],
      ["/docs", 307],
      ["/docs/no-such-file.js", 404],
      ["/openapi.json", 200],
    ] as const) {
      const res = await fetch(new Request(`http://localhost${path}`));
      expect(res.status, path).toBe(status);
      const id = res.headers.get("x-request-id");
      expect(id, path).toMatch(/^req_[0-9a-f]{24}$/);
      ids.add(id as string);
    }
    expect(ids.size).toBe(5);
  });

  it("keeps a well-formed id the caller sent and replaces a malformed one", async () => {
    const { fetch } = front();
    const kept = await fetch(new Request("http://localhost/docs/", { headers: { "x-request-id": "trace-42" } }));
    expect(kept.headers.get("x-request-id")).toBe("trace-42");
    const replaced = await fetch(new Request("http://localhost/docs/init.js", { headers: { "x-request-id": "bad id <>" } }));
    expect(replaced.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it("has Workers run the Worker first for /docs, so its assets get the id too (wrangler.toml)", () => {
    const toml = readFileSync(join(import.meta.dirname, "../../wrangler.toml"), "utf8");
    const start = toml.indexOf("[assets]");
    const assets = toml.slice(start, toml.indexOf("\n[", start + 1));
    expect(assets).toMatch(/^binding = "ASSETS"$/m);
    const first = /^run_worker_first = (\[.*\])$/m.exec(assets)?.[1];
    expect(JSON.parse(first ?? "[]")).toEqual(expect.arrayContaining(["/docs", "/docs/*"]));
  });

  it("is on the 500 of a gateway whose configuration was refused before the request context ran", async () => {
    const app = createApp(() => {
      throw new Error("configuration refused");
    });
    const res = await app.request("/api/v1/usage", { headers: { "x-request-id": "trace-9" } });
    expect(res.status).toBe(500);
    expect(res.headers.get("x-request-id")).toBe("trace-9");
    const body = await res.json();
    expect(body).toMatchObject({ error_code: "INTERNAL_ERROR", request_id: "trace-9" });
    const fresh = await app.request("/healthz");
    expect(fresh.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{24}$/);
  });
});
