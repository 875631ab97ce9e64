// Our PDF417 encoder against two independent implementations: bwip-js draws the same codewords
// module for module (patterns, check codewords, row indicators, layout), and zxing reads our
// symbols back to the exact bytes.
import bwipjs from "bwip-js/node";
import { beforeAll, describe, expect, it } from "vitest";
import { byteCodewords, errorCorrection, type Pdf417Symbol, pdf417 } from "../../src/dte/render/pdf417.ts";
import { prepareBarcodeReader, readBarcodes } from "../support/barcode.ts";

beforeAll(prepareBarcodeReader);

/** The symbol as rows of 0/1 modules. */
function modules(symbol: Pdf417Symbol): number[][] {
  return Array.from({ length: symbol.rows }, (_, r) =>
    Array.from({ length: symbol.width }, (_, m) => ((symbol.bits[r * symbol.stride + (m >> 3)] as number) >> (7 - (m & 7))) & 1),
  );
}

/**
 * bwip-js's drawing of the same data codewords (its raw mode adds length, padding and checks;
 * it reads level 0 as "choose for me", so the cases below start at 1).
 */
function bwipModules(data: Uint8Array, columns: number, level: number): number[][] {
  const text = byteCodewords(data)
    .map((c) => `^${String(c).padStart(3, "0")}`)
    .join("");
  const raw = (bwipjs as unknown as { raw(o: object): { pixs: number[]; pixx: number; pixy: number }[] }).raw;
  const [symbol] = raw({ bcid: "pdf417", text, raw: true, eclevel: level, columns, rowmult: 1 });
  if (!symbol) throw new Error("no symbol");
  return Array.from({ length: symbol.pixy }, (_, y) => symbol.pixs.slice(y * symbol.pixx, (y + 1) * symbol.pixx).map((p) => (p ? 1 : 0)));
}

/** An RGBA image of the symbol, 3 pixels a module, rows 3 modules high, with a quiet zone. */
function image(symbol: Pdf417Symbol) {
  const scale = 3;
  const pad = 30;
  const width = symbol.width * scale + 2 * pad;
  const height = symbol.rows * 3 * scale + 2 * pad;
  const data = new Uint8ClampedArray(width * height * 4).fill(255);
  modules(symbol).forEach((row, r) => {
    for (let y = r * 3 * scale; y < (r + 1) * 3 * scale; y++) {
      row.forEach((dark, x) => {
        if (!dark) return;
        const start = ((y + pad) * width + x * scale + pad) * 4;
        for (let p = 0; p < scale; p++) data.fill(0, start + p * 4, start + p * 4 + 3);
      });
    }
  });
  return { data, width, height, colorSpace: "srgb" } as unknown as Parameters<typeof readBarcodes>[0];
}

const sample = (length: number) => Uint8Array.from({ length }, (_, i) => (i * 37 + 11) % 256);

describe("PDF417 encoder", () => {
  it("byte compaction: six bytes as five base-900 codewords, 924 when the bytes come in sixes, 901 otherwise", () => {
    // 0x010203040506 = 1 108 152 157 446 = 1·900⁴ + 620·900³ + 89·900² + 74·900 + 846
    expect(byteCodewords(Uint8Array.from([1, 2, 3, 4, 5, 6]))).toEqual([924, 1, 620, 89, 74, 846]);
    expect(byteCodewords(Uint8Array.from([1, 2, 3, 4, 5, 6, 255]))).toEqual([901, 1, 620, 89, 74, 846, 255]);
    // 2⁴⁸ − 1 = 429·900⁴ + 11·900³ + 71·900² + 222·900 + 855
    expect(byteCodewords(new Uint8Array(6).fill(255))).toEqual([924, 429, 11, 71, 222, 855]);
  });

  it.each([0, 2, 5, 8])("check codewords at level %i: the whole codeword polynomial has the generator's roots 3¹…3ᵏ", (level) => {
    const data = [5, 453, 178, 121, 239, 928, 0, 900];
    const codewords = [...data, ...errorCorrection(data, level)];
    const count = 2 ** (level + 1);
    expect(codewords).toHaveLength(data.length + count);
    let root = 1;
    for (let i = 1; i <= count; i++) {
      root = (root * 3) % 929;
      let value = 0;
      for (const c of codewords) value = (value * root + c) % 929;
      expect(value, `at 3^${i}`).toBe(0);
    }
  });

  it.each([
    [1, 12, 5],
    [6, 12, 5],
    [7, 3, 1],
    [100, 12, 5],
    [600, 12, 5],
    [741, 12, 5],
    [500, 8, 5],
    [300, 20, 8],
  ])("%i bytes in %i columns at level %i: module for module what bwip-js draws", (length, columns, level) => {
    const data = sample(length);
    expect(modules(pdf417(data, columns, level))).toEqual(bwipModules(data, columns, level));
  });

  it("reads back as the exact bytes, every byte value included", async () => {
    for (const data of [Uint8Array.from({ length: 256 }, (_, i) => i), sample(741), new TextEncoder().encode('<TED version="1.0">')]) {
      const [read] = await readBarcodes(image(pdf417(data, 12)), { formats: ["PDF417"] });
      expect(read && Buffer.from(read.bytes).equals(Buffer.from(data))).toBe(true);
    }
  });

  it("takes more columns when the data would need over 90 rows, and refuses what no symbol holds", () => {
    const wide = pdf417(sample(741), 5);
    expect(wide.rows).toBeLessThanOrEqual(90);
    expect(wide.width).toBeGreaterThan(17 * (5 + 4) + 1);
    expect(() => pdf417(sample(2000), 12)).toThrow(RangeError);
  });
});
