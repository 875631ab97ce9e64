// The routes (and the platform's shared schemas) describe their schemas with zod's `.meta({…})`, which the document reads as it reads
// `.openapi({…})`: each `.openapi` call builds a new schema with eight wrapper methods (about five
// times the cost of `.meta`), and the ~330 of them were paid in every Worker isolate's start-up.
// `.openapi` stays where only it will do: naming a component (`.openapi("Name", …)`) or a path
// parameter (`param`).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const src = join(import.meta.dirname, "..", "..", "src");

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

describe("schema metadata in the routes and the platform", () => {
  it("uses .openapi({…}) only for a path parameter", () => {
    const files = ["routes", "platform"].flatMap((dir) =>
      readdirSync(join(src, dir), { recursive: true, encoding: "utf8" }).map((file) => join(dir, file)),
    );
    const offending = files
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
      .flatMap((file) =>
        openapiObjectArguments(readFileSync(join(src, file), "utf8"))
          .filter((call) => !/\bparam\s*:/.test(call))
          .map((call) => `${file}: ${call.slice(0, 80)}`),
      );
    expect(offending).toEqual([]);
  });

  it("finds a call that should be .meta", () => {
    expect(openapiObjectArguments('z.string().openapi({ description: "x", example: ["a"] }).optional()')).toEqual([
      '.openapi({ description: "x", example: ["a"] }',
    ]);
  });
});
