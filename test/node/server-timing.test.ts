// Every answer carries Server-Timing (README, docs/api-conventions.md): the app's, and on Node the
// files under /docs the front serves itself, Swagger UI's included.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { nodeFront } from "../../src/entry/node-server.ts";
import { testDeps } from "../support/app.ts";

const publicDir = join(import.meta.dirname, "../../public");
const TIMING = /^total;dur=\d+\.\d$/;

describe("Server-Timing", () => {
  it("is on /docs, its files, its redirect, a missing file and the app's answers (Node front)", async () => {
    const { deps } = testDeps();
    const { fetch } = nodeFront(
      createApp(() => deps),
      publicDir,
    );
    for (const [path, status] of [
      ["/docs/", 200],
      ["/docs/init.js", 200],
      ["/docs/vendor/swagger-ui.css", 200],
      ["/docs", 307],
      ["/docs/no-such-file.js", 404],
      ["/healthz", 200],
      ["/api/v1/usage", 401],
    ] as const) {
      const res = await fetch(new Request(`http://localhost${path}`));
      expect(res.status, path).toBe(status);
      expect(res.headers.get("server-timing"), path).toMatch(TIMING);
      await res.arrayBuffer();
    }
  });

  it("is on the 500 of a gateway whose configuration was refused before the request context ran", async () => {
    const app = createApp(() => {
      throw new Error("configuration refused");
    });
    const res = await app.request("/api/v1/usage");
    expect(res.status).toBe(500);
    expect(res.headers.get("server-timing")).toMatch(TIMING);
  });
});
