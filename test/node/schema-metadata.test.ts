// How the routes and the platform's shared schemas attach their descriptions and examples, which
// every Worker isolate pays for at start-up (bench/README.md "Start-up"):
// - `.openapi({…})` builds a new schema with eight wrapper methods (about five times the cost of
//   zod's own metadata), so it stays where only it will do: a path parameter (`param`); components
//   are named with `.openapi("Name", …)`.
// - On a chain that starts at a zod builder (`z.string().max(9).register(z.globalRegistry, {…})`)
//   the fresh schema takes its metadata in place; `.meta({…})` would clone it first (about 270
//   clones at each start). Any other receiver (a shared schema, a helper's result) may already carry
//   metadata, which `register` would replace or leak to its other uses: there it is `.meta({…})`.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const src = join(import.meta.dirname, "..", "..", "src");
const sources = ["routes", "platform"]
  .flatMap((dir) => readdirSync(join(src, dir), { recursive: true, encoding: "utf8" }).map((file) => join(dir, file)))
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
  .map((file) => ({ file, text: readFileSync(join(src, file), "utf8") }));

/** The argument text of each `.openapi({…})` call in a source text. */
function openapiObjectArguments(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\.openapi\(\s*\{/g)) {
    let depth = 1;
    let at = (match.index ?? 0) + match[0].length;
    while (depth > 0 && at < text.length) {
      const char = text[at];
      if (char === "{" || char === "(" || char === "[") depth++;
      else if (char === "}" || char === ")" || char === "]") depth--;
      at++;
    }
    found.push(text.slice(match.index, at));
  }
  return found;
}

/** The index of the "(" that the ")" at `close` ends. */
function openingParen(text: string, close: number): number {
  let depth = 0;
  for (let at = close; at >= 0; at--) {
    if (text[at] === ")") depth++;
    else if (text[at] === "(" && --depth === 0) return at;
  }
  return -1;
}

/** The root of the method chain that ends just before `end` (`z` for `z.string().max(9)`), or "" when it is no chain of calls. */
function chainRoot(text: string, end: number): string {
  let at = end - 1;
  while (/\s/.test(text[at] ?? "")) at--;
  while (text[at] === ")") {
    const name = /[\w$]+$/.exec(text.slice(0, openingParen(text, at)))?.[0] ?? "";
    at = openingParen(text, at) - name.length - 1;
    if (text[at] !== ".") return "";
    at--;
    while (/\s/.test(text[at] ?? "")) at--;
    if (text[at] !== ")") return /[\w$]+$/.exec(text.slice(0, at + 1))?.[0] ?? "";
  }
  return "";
}

/** Where a source registers metadata in place on something that is not a fresh zod chain. */
function registersOnShared(text: string): string[] {
  return [...text.matchAll(/\.register\(z\.globalRegistry,/g)]
    .filter((match) => chainRoot(text, match.index ?? 0) !== "z")
    .map((match) => text.slice(Math.max(0, (match.index ?? 0) - 60), match.index).trim());
}

describe("schema metadata in the routes and the platform", () => {
  it("uses .openapi({…}) only for a path parameter", () => {
    const offending = sources.flatMap(({ file, text }) =>
      openapiObjectArguments(text)
        .filter((call) => !/\bparam\s*:/.test(call))
        .map((call) => `${file}: ${call.slice(0, 80)}`),
    );
    expect(offending).toEqual([]);
  });

  it("registers metadata in place only on a fresh zod chain", () => {
    const offending = sources.flatMap(({ file, text }) => registersOnShared(text).map((before) => `${file}: …${before}`));
    expect(offending).toEqual([]);
  });

  it("finds what the rules refuse", () => {
    expect(openapiObjectArguments('z.string().openapi({ description: "x", example: ["a"] }).optional()')).toEqual([
      '.openapi({ description: "x", example: ["a"] }',
    ]);
    expect(registersOnShared("z.string().max(9).optional().register(z.globalRegistry, {})")).toEqual([]);
    expect(registersOnShared("z.array(Row).register(z.globalRegistry, {})")).toEqual([]);
    expect(registersOnShared("Shared.optional().register(z.globalRegistry, {})")).toHaveLength(1);
    expect(registersOnShared("helper(1).register(z.globalRegistry, {})")).toHaveLength(1);
    expect(registersOnShared("Shared.register(z.globalRegistry, {})")).toHaveLength(1);
  });
});
