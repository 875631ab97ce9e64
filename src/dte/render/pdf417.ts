// The TED's PDF417 (ISO/IEC 15438; docs/dte-engine.md §6.3): the TED's exact ISO-8859-1 bytes in
// byte compaction, Reed-Solomon error correction over GF(929) at level 5, row indicators, and the
// codeword patterns of each row's cluster. Our own encoder: a general barcode library spent tens of
// milliseconds per symbol, this one well under one.
import { PDF417_PATTERNS } from "./pdf417-patterns.ts";

export interface Pdf417Symbol {
  /** Size in modules; each row is one module high here (printers draw it 3 modules high). */
  width: number;
  rows: number;
  /** For each row, its bars left to right, flat: first module, width in modules, first module, … */
  bars: number[][];
}

const MODULUS = 929;
const MAX_ROWS = 90;
const MAX_COLUMNS = 30;
const START = 0x1fea8; // 17 modules: 11111111010101000
const STOP = 0x3fa29; // 18 modules: 111111101000101001
const LATCH_BYTE = 901;
const LATCH_BYTE_SIX = 924; // when the byte count is a multiple of 6
const PAD = 900;

/** Byte compaction: six bytes as five base-900 codewords, leftover bytes one codeword each. */
export function byteCodewords(data: Uint8Array): number[] {
  const codewords = [data.length % 6 === 0 ? LATCH_BYTE_SIX : LATCH_BYTE];
  let i = 0;
  for (; i + 6 <= data.length; i += 6) {
    // 48 bits exceed a double's exact integers only past 2^53: six bytes are 2^48, safe.
    let value = 0;
    for (let j = 0; j < 6; j++) value = value * 256 + (data[i + j] as number);
    const group = [0, 0, 0, 0, 0];
    for (let j = 4; j >= 0; j--) {
      group[j] = value % 900;
      value = Math.floor(value / 900);
    }
    codewords.push(...group);
  }
  for (; i < data.length; i++) codewords.push(data[i] as number);
  return codewords;
}

/** The generator polynomial's coefficients for `count` check codewords: (x − 3)(x − 3²)…, low first. */
const generators = new Map<number, Int32Array>();
function generator(count: number): Int32Array {
  let g = generators.get(count);
  if (g) return g;
  g = new Int32Array(count + 1);
  g[0] = 1;
  let root = 1;
  for (let i = 0; i < count; i++) {
    root = (root * 3) % MODULUS;
    // Multiply by (x − root): shift up, then subtract root times the old coefficients.
    for (let j = i + 1; j > 0; j--) g[j] = ((g[j - 1] as number) + MODULUS - (((g[j] as number) * root) % MODULUS)) % MODULUS;
    g[0] = (MODULUS - (((g[0] as number) * root) % MODULUS)) % MODULUS;
  }
  generators.set(count, g);
  return g;
}

/**
 * For each factor, its products with every generator coefficient g[j] mod 929, side by side, so
 * the division below needs no modulo in its inner loop (it runs data × checks times: ~40 000 per
 * TED) and reads one short run of memory per codeword.
 */
const productTables = new Map<number, Uint16Array>();
function productTable(count: number): Uint16Array {
  let table = productTables.get(count);
  if (table) return table;
  const g = generator(count);
  const stride = count + 1;
  table = new Uint16Array(stride * MODULUS);
  for (let f = 0; f < MODULUS; f++) for (let j = 0; j <= count; j++) table[f * stride + j] = (f * (g[j] as number)) % MODULUS;
  productTables.set(count, table);
  return table;
}

/** The check codewords: the remainder of the data polynomial divided by the generator, negated. */
export function errorCorrection(data: number[], level: number): number[] {
  const count = 1 << (level + 1); // a shift, not 2 **: a small integer keeps the loops below on integer arithmetic
  const products = productTable(count);
  const stride = count + 1;
  const remainder = new Int32Array(count);
  for (let k = 0; k < data.length; k++) {
    const row = (((data[k] as number) + (remainder[count - 1] as number)) % MODULUS) * stride;
    for (let j = count - 1; j > 0; j--) {
      const value = (remainder[j - 1] as number) - (products[row + j] as number);
      // value + 929 when negative, without a branch (its sign is a coin toss: mispredicted half the time)
      remainder[j] = value + (MODULUS & (value >> 31));
    }
    remainder[0] = (MODULUS - (products[row] as number)) % MODULUS;
  }
  return Array.from(remainder.reverse(), (c) => (c === 0 ? 0 : MODULUS - c));
}

/** A pattern's bars as [offset, width] pairs, worked out once per pattern. */
const barsOfPattern = new Map<number, number[]>();
function patternBars(pattern: number, bits: number): number[] {
  let bars = barsOfPattern.get(pattern);
  if (bars) return bars;
  bars = [];
  let run = 0;
  for (let m = 0; m <= bits; m++) {
    if (m < bits && (pattern >> (bits - 1 - m)) & 1) run++;
    else if (run) {
      bars.push(m - run, run);
      run = 0;
    }
  }
  barsOfPattern.set(pattern, bars);
  return bars;
}

/** The bars of a pattern `bits` modules long placed at module `x`, appended to `line`. */
function addBars(line: number[], pattern: number, bits: number, x: number): void {
  const bars = patternBars(pattern, bits);
  for (let i = 0; i < bars.length; i += 2) line.push(x + (bars[i] as number), bars[i + 1] as number);
}

/** How many rows `bytes` bytes take at `columns` data columns and error correction `level` (what `pdf417` draws). */
export function pdf417Rows(bytes: number, columns: number, level = 5): number {
  const message = 1 + 5 * Math.floor(bytes / 6) + (bytes % 6);
  return Math.max(3, Math.ceil((1 + message + 2 ** (level + 1)) / columns));
}

/**
 * The symbol for `data` with at least `columns` data columns (more when the data would need over
 * 90 rows), at error correction `level` (0–8).
 */
export function pdf417(data: Uint8Array, columns: number, level = 5): Pdf417Symbol {
  const message = byteCodewords(data);
  const checks = 2 ** (level + 1);
  let rows = Math.max(3, Math.ceil((1 + message.length + checks) / columns));
  while (rows > MAX_ROWS && columns < MAX_COLUMNS) rows = Math.max(3, Math.ceil((1 + message.length + checks) / ++columns));
  const dataCount = rows * columns - checks;
  if (rows > MAX_ROWS || dataCount > MODULUS - 1) throw new RangeError(`${data.length} bytes do not fit a PDF417 symbol`);

  const codewords = [dataCount, ...message];
  while (codewords.length < dataCount) codewords.push(PAD);
  codewords.push(...errorCorrection(codewords, level));

  const width = 17 * (columns + 4) + 1;
  const bars: number[][] = [];
  for (let row = 0; row < rows; row++) {
    const cluster = row % 3;
    const patterns = PDF417_PATTERNS[cluster] as readonly number[];
    const base = 30 * Math.floor(row / 3);
    const rowsPart = Math.floor((rows - 1) / 3);
    const levelPart = level * 3 + ((rows - 1) % 3);
    const [left, right] =
      cluster === 0
        ? [base + rowsPart, base + columns - 1]
        : cluster === 1
          ? [base + levelPart, base + rowsPart]
          : [base + columns - 1, base + levelPart];
    const line: number[] = [];
    addBars(line, START, 17, 0);
    addBars(line, patterns[left] as number, 17, 17);
    for (let c = 0; c < columns; c++) addBars(line, patterns[codewords[row * columns + c] as number] as number, 17, 34 + 17 * c);
    addBars(line, patterns[right] as number, 17, 34 + 17 * columns);
    addBars(line, STOP, 18, 51 + 17 * columns);
    bars.push(line);
  }
  return { width, rows, bars };
}
