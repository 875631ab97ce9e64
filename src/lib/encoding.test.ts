import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { base64ToBytes, base64ToBytesAsync, bytesToBase64 } from "./encoding.ts";

const immediately = async () => {};

/** What the one-step reading gives: the bytes, or that it refuses. */
function whole(text: string): Uint8Array | "refused" {
  try {
    return base64ToBytes(text.replace(/\s+/g, ""));
  } catch {
    return "refused";
  }
}

async function sliced(text: string, piece: number): Promise<Uint8Array | "refused"> {
  try {
    return await base64ToBytesAsync(text, immediately, piece);
  } catch {
    return "refused";
  }
}

describe("base64ToBytesAsync", () => {
  // Base64 as uploaded (line breaks, spaces, NBSP) and the mistakes it may carry: padding in the
  // middle, a stray character, a length no decoder takes.
  const unit = fc.constantFrom("Q", "U", "J", "D", "a", "+", "/", "0", "=", "==", "\n", "\r\n", " ", "\t", "\u00a0", "\u2003", "*", "é");
  const text = fc.oneof(
    fc.array(unit, { maxLength: 60 }).map((units) => units.join("")),
    fc.uint8Array({ maxLength: 80 }).map((bytes) => bytesToBase64(bytes).replace(/.{1,7}/g, (line) => `${line}\n`)),
  );

  it("reads what the one-step reading reads, refuses what it refuses, for any piece size", async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.constantFrom(4, 8, 12, 16), async (input, piece) => {
        expect(await sliced(input, piece)).toEqual(whole(input));
      }),
      { numRuns: 2000 },
    );
  });

  it("drops line breaks piece by piece, pausing between pieces", async () => {
    const bytes = Uint8Array.from({ length: 30_000 }, (_, i) => (i * 7) & 255);
    const wrapped = bytesToBase64(bytes).replace(/.{76}/g, "$&\r\n");
    let pauses = 0;
    expect(await base64ToBytesAsync(wrapped, async () => void pauses++, 4096)).toEqual(bytes);
    expect(pauses).toBeGreaterThan(20);
  });
});
