// The README's operations table must say what the code does: the scope and weight each route
// declares, and "implemented" exactly for the operations the app serves.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { operationsOf } from "../../src/platform/operation.ts";
import { openApiDocument } from "../../src/routes/openapi.ts";
import { testDeps } from "../support/app.ts";

const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");

describe("README", () => {
  it("has the two quick-start commands", () => {
    expect(readme).toContain("npm install && npm run dev");
    expect(readme).toContain("npm test");
  });

  it("lists every operation with its scope, weight and true status", () => {
    const { deps } = testDeps();
    const app = createApp(() => deps);
    const served = openApiDocument(app).paths ?? {};
    const operations = operationsOf(app);
    expect(operations.length).toBeGreaterThan(40);
    for (const op of operations) {
      const implemented = Boolean((served[op.path] as Record<string, unknown> | undefined)?.[op.method.toLowerCase()]);
      const scope = op.scope ? `\`${op.scope}\`` : "any";
      const row = `| ${op.method} | \`${op.path}\` | ${scope} | ${op.weight} | ${implemented ? "implemented" : "planned"} |`;
      expect(readme, `README row for ${op.method} ${op.path}`).toContain(row);
    }
  });
});
