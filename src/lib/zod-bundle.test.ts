// The Worker bundle's zod (wrangler.toml [alias]) is zod minus its error-message translations.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as zod from "zod";
import * as zodCore from "zod/v4/core";
import * as bundled from "./zod-bundle.ts";

const exported = (namespace: object) => Object.keys(namespace).sort();

describe("the bundle's zod", () => {
  it("exports every name zod exports except locales, in z.core too", () => {
    const expected = exported(zod).filter((name) => name !== "locales");
    expect(exported(bundled)).toEqual(expected);
    expect(exported(bundled.z.core)).toEqual(exported(zodCore).filter((name) => name !== "locales"));
    expect("locales" in bundled.z).toBe(false);
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
