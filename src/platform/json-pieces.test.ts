import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Base64Value, gathered, jsonPieces } from "./json-pieces.ts";

const immediately = async () => {};

async function joined(pieces: AsyncIterable<string>): Promise<string> {
  let text = "";
  for await (const piece of pieces) text += piece;
  return text;
}

describe("jsonPieces", () => {
  // JSON values with what JSON.stringify leaves out or writes as null, dates, and base64 bytes.
  const odd = fc.constantFrom(undefined, () => 1, Symbol("s"), new Date(0), { toJSON: () => "custom" }, Number.NaN, -0);
  const bytes = fc.uint8Array({ maxLength: 40 }).map((b) => new Base64Value(b));
  const { node: value } = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.jsonValue({ maxDepth: 2 }),
      odd,
      bytes,
      fc.array(tie("node"), { maxLength: 4 }),
      fc.dictionary(fc.string({ maxLength: 4 }), tie("node"), { maxKeys: 4 }),
    ),
  }));

  it("joins into JSON.stringify's text, byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 4 }), value, { maxKeys: 4 }), async (data) => {
        expect(await joined(gathered(jsonPieces(data, immediately), 8))).toBe(JSON.stringify(data));
      }),
      { numRuns: 1000 },
    );
  });

  it("encodes large bytes as base64 a piece at a time, pausing between pieces", async () => {
    const pdf = Uint8Array.from({ length: 2_000_000 }, (_, i) => (i * 31) & 255);
    let pauses = 0;
    const text = await joined(jsonPieces({ pdf: new Base64Value(pdf) }, async () => void pauses++));
    expect(text).toBe(JSON.stringify({ pdf: new Base64Value(pdf) }));
    expect(pauses).toBeGreaterThanOrEqual(5);
  });
});
