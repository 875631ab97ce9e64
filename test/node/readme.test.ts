// README is the entry page: its quick start has the two commands CI and a newcomer run, and its
// short operations table lists every operation the app serves with the OpenAPI summary and a link
// on. The full operations table (docs/operations.md) must say what the code does: the scope and
// weight each route declares, "implemented" exactly for the operations the app serves, and the four
// files each row leads to (route, SII function, sandbox handler, test) must exist and be the right ones.
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
const operationsDoc = readFileSync(join(root, "docs", "operations.md"), "utf8");

const { deps } = testDeps();
const app = createApp(() => deps);
const operations = operationsOf(app);

/** A table's operation rows, cells split. */
const rowsOf = (markdown: string) =>
  markdown
    .split("\n")
    .filter((line) => /^\| (GET|POST|PUT|PATCH|DELETE) \| `/.test(line))
    .map((line) => line.slice(2, -2).split(" | "));

/** docs/operations.md's rows: `| Method | Path | Scope | Weight | Status | wire format | route | SII | sandbox | test |`. */
const rows = rowsOf(operationsDoc);

function rowOf(op: OperationSpec): string[] {
  const found = rows.filter(([method, path]) => method === op.method && path === `\`${op.path}\``);
  expect(found, `docs/operations.md rows for ${op.method} ${op.path}`).toHaveLength(1);
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
  it("has the two quick-start commands near its top, and is an entry page of at most 300 lines", () => {
    const quickStart = readme.slice(
      readme.indexOf("\n## Quick start\n"),
      readme.indexOf("\n## ", readme.indexOf("\n## Quick start\n") + 1),
    );
    expect(quickStart).toContain("```sh\nnpm install && npm run dev\n```");
    expect(quickStart).toContain("```sh\nnpm test\n```");
    expect(quickStart).toContain("http://127.0.0.1:8787");
    expect(quickStart).toContain("Development API token");
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
  });

  it("lists every operation the app serves once, with its OpenAPI summary and a link on", () => {
    const document = openApiDocument(app);
    const short = rowsOf(readme);
    for (const op of operations) {
      const found = short.filter(([method, path]) => method === op.method && path === `\`${op.path}\``);
      expect(found, `README rows for ${op.method} ${op.path}`).toHaveLength(1);
      const [, , summary, link] = found[0] as string[];
      const described = (document.paths?.[op.path] as Record<string, { summary?: string }> | undefined)?.[op.method.toLowerCase()];
      expect(summary, `${op.method} ${op.path}: the OpenAPI summary`).toBe(described?.summary);
      expect(link, `${op.method} ${op.path}: a link into docs/`).toMatch(/^\[[^\]]+\]\(docs\/[\w-]+\.md(#[\w-]+)?\)$/);
    }
    expect(short).toHaveLength(operations.length);
  });
});

describe("docs/operations.md", () => {
  it("has a row for every operation of the OpenAPI document under /api/", () => {
    const paths = openApiDocument(app).paths ?? {};
    const documented = Object.entries(paths).flatMap(([path, item]) =>
      path.startsWith("/api/")
        ? Object.keys(item as object)
            .filter((key) => ["get", "post", "put", "delete", "patch"].includes(key))
            .map((method) => `${method.toUpperCase()} ${path}`)
        : [],
    );
    expect(documented.length).toBeGreaterThan(40);
    for (const operation of documented) {
      const [method, path] = operation.split(" ");
      expect(
        rows.filter(([m, p]) => m === method && p === `\`${path}\``),
        operation,
      ).toHaveLength(1);
    }
  });

  it("lists every operation with its scope, weight and true status", () => {
    const served = openApiDocument(app).paths ?? {};
    expect(operations.length).toBeGreaterThan(40);
    for (const op of operations) {
      const implemented = Boolean((served[op.path] as Record<string, unknown> | undefined)?.[op.method.toLowerCase()]);
      const scope = op.scope ? `\`${op.scope}\`` : "any";
      const row = `| ${op.method} | \`${op.path}\` | ${scope} | ${op.weight} | ${implemented ? "implemented" : "planned"} |`;
      expect(operationsDoc, `docs/operations.md row for ${op.method} ${op.path}`).toContain(row);
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
