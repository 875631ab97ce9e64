// The document's error answers: each status shows the code it really carries, and every code
// the source can answer is in the `error_code` enum.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { documentOf, errorOf, type OpenApiDocument, operationsIn, valueAt } from "../support/answers.ts";
import { testDeps } from "../support/app.ts";

async function document(): Promise<OpenApiDocument> {
  const { deps } = testDeps();
  return documentOf(await createApp(() => deps).request("/openapi.json"));
}

const CODE_OF_STATUS: Record<string, string> = {
  "400": "VALIDATION_ERROR",
  "401": "HTTP_401",
  "403": "INSUFFICIENT_SCOPE",
  "404": "HTTP_404",
  "405": "HTTP_405",
  "409": "IDEMPOTENCY_CONFLICT",
  "413": "PAYLOAD_TOO_LARGE",
  "415": "HTTP_415",
  "422": "VALIDATION_ERROR",
  "429": "QUOTA_EXCEEDED",
  "500": "INTERNAL_ERROR",
  "502": "SII_GATEWAY_ERROR",
  "503": "SII_UNAVAILABLE",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("error answers in the OpenAPI document", () => {
  it("gives every error status of every operation an example with the code that status carries", async () => {
    const doc = await document();
    let checked = 0;
    for (const { path, method, operation } of operationsIn(doc)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) < 400) continue;
        const example = response.content?.["application/json"]?.example;
        expect(example, `${method} ${path} ${status}`).toBeDefined();
        expect(example.success).toBe(false);
        if (CODE_OF_STATUS[status]) expect(example.error_code, `${method} ${path} ${status}`).toBe(CODE_OF_STATUS[status]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(200);
    const generar = doc.paths?.["/api/v1/platform/dte/documentos/generar"]?.post?.responses ?? {};
    expect(generar["422"].content["application/json"].example.errors[0].location).toBe("body");
    expect(generar["401"].content["application/json"].example.error_code).not.toBe(
      generar["422"].content["application/json"].example.error_code,
    );
  });

  it("lists in the error_code enum every code the source answers, and the examples use only those", async () => {
    const doc = await document();
    const listed = valueAt(doc.components?.schemas?.Error, "properties", "error_code", "enum");
    const codes = new Set<string>(Array.isArray(listed) ? listed.map(String) : []);
    const thrown = new Set<string>();
    for (const file of sourceFiles(join(import.meta.dirname, "../../src"))) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/new ApiError\(\s*[^,]+,\s*"([A-Z0-9_]+)"/g)) thrown.add(m[1] as string);
      for (const m of text.matchAll(/error_code:\s*"([A-Z0-9_]+)"/g)) thrown.add(m[1] as string);
      for (const m of text.matchAll(/\|\s*"([A-Z0-9_]+)"/g)) if (file.endsWith("api-error.ts")) thrown.add(m[1] as string);
    }
    expect(thrown.size).toBeGreaterThan(15);
    expect([...thrown].filter((code) => !codes.has(code))).toEqual([]);
    for (const { operation } of operationsIn(doc))
      for (const response of Object.values(operation.responses ?? {})) {
        const code = response.content?.["application/json"]?.example?.error_code;
        if (code) expect(codes.has(code)).toBe(true);
      }
  });

  it("answers a refusal with the code its status documents", async () => {
    const { deps } = testDeps();
    const app = createApp(() => deps);
    const unauthenticated = await app.request("/api/v1/usage");
    expect(unauthenticated.status).toBe(401);
    expect((await errorOf(unauthenticated)).error_code).toBe(CODE_OF_STATUS["401"]);
    const doc = await document();
    expect(doc.paths?.["/api/v1/usage"]?.get?.responses?.["401"].content["application/json"].example.error_code).toBe("HTTP_401");
  });
});
