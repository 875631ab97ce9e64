import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonBytesAsync } from "./json-async.ts";

const immediately = async () => {};
const encode = (text: string) => new TextEncoder().encode(text);

/** What reading the body in one step gives: the value, or that it refuses. */
function whole(bytes: Uint8Array): { value: unknown } | "refused" {
  try {
    return { value: JSON.parse(new TextDecoder().decode(bytes)) };
  } catch {
    return "refused";
  }
}

async function sliced(bytes: Uint8Array, longString: number, piece: number): Promise<{ value: unknown } | "refused"> {
  try {
    return { value: await parseJsonBytesAsync(bytes, immediately, { longString, piece, scanWindow: piece }) };
  } catch {
    return "refused";
  }
}

describe("parseJsonBytesAsync", () => {
  // Strings with every escape, characters of 1 to 4 UTF-8 bytes and runs of backslashes, so pieces
  // fall inside escapes and characters.
  const text = fc.string({ unit: fc.constantFrom("a", "Q", "=", "\\", '"', "\n", "ñ", "€", "😀", "\ufeff", "/", "\u0001"), maxLength: 40 });
  const { node: value } = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      text,
      fc.integer(),
      fc.constant(null),
      fc.array(tie("node"), { maxLength: 3 }),
      fc.dictionary(text, tie("node"), { maxKeys: 3 }),
    ),
  }));
  const body = fc
    .tuple(value, fc.boolean())
    .map(([v, spaced]) => encode(JSON.stringify({ xml: v, more: v }, null, spaced ? 1 : undefined)));
  /** A body with one byte changed: raw control characters, cut escapes, invalid UTF-8, stray quotes. */
  const damaged = fc
    .tuple(body, fc.nat(), fc.constantFrom(0x22, 0x5c, 0x01, 0xff, 0xc3, 0x80, 0x75, 0x7d, 0x2c))
    .map(([bytes, at, byte]) => {
      const copy = bytes.slice();
      if (copy.length) copy[at % copy.length] = byte;
      return copy;
    });

  it("gives what JSON.parse of the decoded text gives, and refuses what it refuses, for any piece size", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(body, damaged),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 9 }),
        async (bytes, longString, piece) => {
          expect(await sliced(bytes, longString, piece)).toEqual(whole(bytes));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("keeps a byte-order mark at the start of the text out and one inside a long string in", async () => {
    const bytes = encode(`\ufeff{"xml":"\ufeff${"A".repeat(100)}"}`);
    expect(await parseJsonBytesAsync(bytes, immediately, { longString: 10, piece: 7 })).toEqual({ xml: `\ufeff${"A".repeat(100)}` });
  });

  it("reads a long value in pieces, pausing between them", async () => {
    let pauses = 0;
    const xml = "QUJD\\n".repeat(200_000);
    const parsed = await parseJsonBytesAsync(encode(`{"xml":"${xml}","n":1}`), async () => void pauses++);
    expect(parsed).toEqual({ xml: "QUJD\n".repeat(200_000), n: 1 });
    expect(pauses).toBeGreaterThanOrEqual(2);
  });
});
