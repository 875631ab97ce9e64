// The release as an integrator reads it: one version in package.json, the OpenAPI document and
// /healthz; the document's tags in reading order with the operator's Admin last, and Swagger UI
// keeping that order.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { Health } from "../../src/routes/health/healthz.ts";
import { answerOf, documentOf } from "../support/answers.ts";
import { testDeps } from "../support/app.ts";

const root = join(import.meta.dirname, "..", "..");
const packageVersion = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version as string;

describe("the release's version", () => {
  it("is package.json's in info.version, /healthz and the changelog's latest entry", async () => {
    const { deps } = testDeps();
    const app = createApp(() => deps);
    const doc = await documentOf(await app.request("/openapi.json"));
    const health = await answerOf(await app.request("/healthz"), Health);
    expect(packageVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(doc.info.version).toBe(packageVersion);
    expect(health.data.version).toBe(packageVersion);
    const changelog = readFileSync(join(root, "CHANGELOG.md"), "utf8");
    expect(/^## \[(\d+\.\d+\.\d+)\]/m.exec(changelog)?.[1]).toBe(packageVersion);
  });
});

describe("the tags' order", () => {
  it("lists the operator's Admin tag last, after Sandbox, and the SII groups before both", async () => {
    const { deps } = testDeps();
    const doc = await documentOf(await createApp(() => deps).request("/openapi.json"));
    const names = doc.tags?.map((t) => t.name) ?? [];
    expect(names.at(-1)).toBe("Admin");
    expect(names.at(-2)).toBe("Sandbox");
    expect(names.indexOf("Folios")).toBeLessThan(names.indexOf("Sandbox"));
  });

  it("is kept by Swagger UI: /docs/ sets no tagsSorter", () => {
    const init = readFileSync(join(root, "public", "docs", "init.js"), "utf8");
    expect(init).toContain("SwaggerUIBundle(");
    expect(init).not.toMatch(/^\s*tagsSorter\s*:/m);
  });
});
