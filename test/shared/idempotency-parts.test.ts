// Cutting a stored answer's text into parts of a bounded UTF-8 size (Durable Object rows,
// DynamoDB items): the parts join back to the text, none is over the bound, and none splits a
// character (a lone surrogate would not survive a store's UTF-8).
import { describe, expect, it } from "vitest";
import { inGroups, partsOf } from "../../src/adapters/idempotency-parts.ts";

const bytes = (text: string) => new TextEncoder().encode(text).length;
const splitsPair = (part: string) => /[\ud800-\udbff]$/.test(part) || /^[\udc00-\udfff]/.test(part);

describe("partsOf", () => {
  it("keeps a text that fits as one part, and the empty text as one empty part", () => {
    expect(partsOf("v1.abc", 10)).toEqual(["v1.abc"]);
    expect(partsOf("", 10)).toEqual([""]);
  });

  it("cuts ASCII at exactly the bound", () => {
    const parts = partsOf("a".repeat(25), 10);
    expect(parts.map((p) => p.length)).toEqual([10, 10, 5]);
  });

  it("cuts multi-byte text by bytes, never inside a character or a surrogate pair", () => {
    const text = "añ€😀".repeat(50) + "x😀".repeat(33);
    for (const max of [4, 5, 6, 7, 10, 33]) {
      const parts = partsOf(text, max);
      expect(parts.join("")).toBe(text);
      for (const part of parts) {
        expect(bytes(part)).toBeLessThanOrEqual(max);
        expect(part.length).toBeGreaterThan(0);
        expect(splitsPair(part)).toBe(false);
      }
    }
  });
});

describe("inGroups", () => {
  it("runs every item, at most `width` at once, and answers in the items' order", async () => {
    let running = 0;
    let most = 0;
    const results = await inGroups([1, 2, 3, 4, 5, 6, 7], 3, async (item, i) => {
      running++;
      most = Math.max(most, running);
      await Promise.resolve();
      running--;
      return `${item}@${i}`;
    });
    expect(results).toEqual(["1@0", "2@1", "3@2", "4@3", "5@4", "6@5", "7@6"]);
    expect(most).toBe(3);
  });
});
