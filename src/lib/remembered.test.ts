import { describe, expect, it } from "vitest";
import { remembered, rememberedFor } from "./remembered.ts";

describe("remembered", () => {
  it("computes a key once while it is kept, and keeps the last `size` keys, the oldest dropped first", () => {
    const computed: string[] = [];
    const upper = remembered(2, (text: string) => {
      computed.push(text);
      return text.toUpperCase();
    });
    expect([upper("a"), upper("a"), upper("b"), upper("a")]).toEqual(["A", "A", "B", "A"]);
    expect(computed).toEqual(["a", "b"]);
    upper("c"); // drops "a", the oldest
    expect([upper("b"), upper("a")]).toEqual(["B", "A"]);
    expect(computed).toEqual(["a", "b", "c", "a"]);
  });

  it("computes a key `keeps` refuses each time, and keeps none of them", () => {
    let calls = 0;
    const length = remembered(
      4,
      (text: string) => {
        calls++;
        return text.length;
      },
      (text) => text.length <= 3,
    );
    expect([length("abc"), length("abc"), length("abcd"), length("abcd")]).toEqual([3, 3, 4, 4]);
    expect(calls).toBe(3);
  });

  it("by identity: the same object once, an equal other object again", () => {
    let calls = 0;
    const length = rememberedFor((bytes: Uint8Array) => {
      calls++;
      return bytes.length;
    });
    const one = new Uint8Array(3);
    expect([length(one), length(one), length(new Uint8Array(3))]).toEqual([3, 3, 3]);
    expect(calls).toBe(2);
  });
});
