// The README's operations table must say what the code does: the scope and weight each route
// declares, "implemented" exactly for the operations the app serves, and the four files each row
// leads to (route, SII function, sandbox handler, test) must exist and be the right ones.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { operationsOf } from "../../src/platform/operation.ts";
import type { OperationSpec } from "../../src/platform/quota.ts";
import { openApiDocument } from "../../src/routes/openapi.ts";
import { testDeps } from "../support/app.ts";

const root = join(import.meta.dirname, "..", "..");
const readme = readFileSync(join(root, "README.md"), "utf8");

const { deps } = testDeps();
const app = createApp(() => deps);
const operations = operationsOf(app);

/** The table's rows: `| Method | Path | Scope | Weight | Status | wire format | route | SII | sandbox | test |`. */
const rows = readme
  .split("\n")
  .filter((line) => /^\| (GET|POST|PUT) \| `/.test(line))
  .map((line) => line.slice(2, -2).split(" | "));

function rowOf(op: OperationSpec): string[] {
  const found = rows.filter(([method, path]) => method === op.method && path === `\`${op.path}\``);
  expect(found, `README rows for ${op.method} ${op.path}`).toHaveLength(1);
  return found[0] as string[];
}

/** `—`, or `name`, `name` (`module`) groups joined by `; `: the module and its names. */
function functionsIn(cell: string): { module: string; names: string[] }[] {
  if (cell === "—") return [];
  const groups = cell.split("; ").map((group) => {
    const match = /^((?:`\w+`, )*`\w+`) \(`([^`]+)`\)$/.exec(group);
    expect(match, `"${group}" reads \`name\`, \`name\` (\`module\`)`).not.toBeNull();
    return { module: match?.[2] ?? "", names: [...(match?.[1] ?? "").matchAll(/`(\w+)`/g)].map((m) => m[1] as string) };
  });
  return groups;
}

/** A test mentions an operation by its path up to the first parameter, or by its last two words (`async/estado`). */
function mentions(test: string, path: string): boolean {
  const words = path.split("/").filter((part) => part && !part.startsWith("{"));
  return test.includes(path.split("{")[0] as string) || test.includes(words.slice(-2).join("/"));
}

async function checkFunctions(cell: string, where: RegExp, op: OperationSpec): Promise<void> {
  for (const { module, names } of functionsIn(cell)) {
    expect(module, `${op.method} ${op.path}: ${module}`).toMatch(where);
    expect(existsSync(join(root, module)), `${module} exists`).toBe(true);
    const exports = (await import(join(root, module))) as Record<string, unknown>;
    for (const name of names) expect(typeof exports[name], `${name} is a function exported by ${module}`).toBe("function");
  }
}

describe("README", () => {
  it("has the two quick-start commands", () => {
    expect(readme).toContain("npm install && npm run dev");
    expect(readme).toContain("npm test");
  });

  it("lists every operation with its scope, weight and true status", () => {
    const served = openApiDocument(app).paths ?? {};
    expect(operations.length).toBeGreaterThan(40);
    for (const op of operations) {
      const implemented = Boolean((served[op.path] as Record<string, unknown> | undefined)?.[op.method.toLowerCase()]);
      const scope = op.scope ? `\`${op.scope}\`` : "any";
      const row = `| ${op.method} | \`${op.path}\` | ${scope} | ${op.weight} | ${implemented ? "implemented" : "planned"} |`;
      expect(readme, `README row for ${op.method} ${op.path}`).toContain(row);
    }
    // And no row for an operation the app does not register, unless it says so.
    for (const [method, path, , , status] of rows) {
      const registered = operations.some((op) => op.method === method && `\`${op.path}\`` === path);
      expect(registered || status === "planned", `${method} ${path} is registered or planned`).toBe(true);
    }
  });

  it("leads from each operation to its route file, SII function, sandbox handler and test", async () => {
    for (const op of operations) {
      const row = rowOf(op);
      expect(row, `${op.method} ${op.path}: ten columns`).toHaveLength(10);
      const [route, sii, sandbox, test] = row.slice(6) as [string, string, string, string];

      const routeFile = /^`(src\/routes\/[\w/-]+\.ts)`$/.exec(route)?.[1];
      expect(routeFile, `${op.method} ${op.path}: route file`).toBeDefined();
      expect(existsSync(join(root, routeFile as string)), `${routeFile} exists`).toBe(true);
      expect(readFileSync(join(root, routeFile as string), "utf8"), `${routeFile} writes out its path`).toContain(`"${op.path}"`);

      await checkFunctions(sii, /^src\/(sii|dte)\//, op);
      await checkFunctions(sandbox, /^src\/sandbox\//, op);

      const testFile = /^`(test\/[\w/-]+\.test\.ts)`$/.exec(test)?.[1];
      expect(testFile, `${op.method} ${op.path}: test file`).toBeDefined();
      expect(existsSync(join(root, testFile as string)), `${testFile} exists`).toBe(true);
      expect(mentions(readFileSync(join(root, testFile as string), "utf8"), op.path), `${testFile} mentions ${op.path}`).toBe(true);
    }
  });
});
