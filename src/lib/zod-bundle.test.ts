// The Worker bundle's zod (wrangler.toml [alias]) is zod minus its translations and two unused parts.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as zod from "zod";
import * as zodCore from "zod/v4/core";
import * as bundled from "./zod-bundle.ts";

const exported = (namespace: object) => Object.keys(namespace).sort();

/** What the bundle leaves out: translations, and zod's schema compiler and JSON Schema reader, which no route calls. */
const LEFT_OUT = [
  "locales",
  "compile",
  "compileFn",
  "withParser",
  "INVALID",
  "ZodCompileAsyncError",
  "ZodCompileUnsupportedError",
  "fromJSONSchema",
];
const kept = (namespace: object) => exported(namespace).filter((name) => !LEFT_OUT.includes(name));

describe("the bundle's zod", () => {
  it("exports every other name zod exports, in z.core too", () => {
    expect(exported(bundled)).toEqual(kept(zod));
    expect(exported(bundled.z.core)).toEqual(kept(zodCore));
    expect("locales" in bundled.z).toBe(false);
  });

  it("leaves out nothing the gateway's code calls", () => {
    const uses = new RegExp(`\\bz\\.(?:core\\.)?(?:${LEFT_OUT.join("|")})\\b`);
    const files = readdirSync("src", { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !f.includes("zod-"));
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => uses.test(readFileSync(join("src", f), "utf8")))).toEqual([]);
  });

  it("is the same zod: its schemas, errors and English messages", () => {
    expect(bundled.z.object).toBe(zod.z.object);
    expect(bundled.ZodError).toBe(zod.ZodError);
    const result = bundled.z.object({ rut: bundled.z.string() }).safeParse({ rut: 7 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe("Invalid input: expected string, received number");
  });

  it("is what wrangler.toml bundles for zod", () => {
    expect(readFileSync("wrangler.toml", "utf8")).toMatch(/\[alias\]\n"zod" = "\.\/src\/lib\/zod-bundle\.ts"/);
  });
});
