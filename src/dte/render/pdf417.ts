// The TED's PDF417 (ISO/IEC 15438; docs/dte-engine.md §6.3): the TED's exact ISO-8859-1 bytes in
// byte compaction, Reed-Solomon error correction over GF(929) at level 5, row indicators, and the
// codeword patterns of each row's cluster. Our own encoder: a general barcode library spent tens of
// milliseconds per symbol, this one well under one.
import { PDF417_PATTERNS } from "./pdf417-patterns.ts";

export interface Pdf417Symbol {
  /** Size in modules; each row is one module high here (printers draw it 3 modules high). */
  width: number;
  rows: number;
  /** Bytes per row: ⌈width / 8⌉. */
  stride: number;
  /**
   * The modules, one bit each (1 = bar), most significant bit first, `stride` bytes a row: the
   * layout of a PDF image mask, so the page takes it as it is.
   */
  bits: Uint8Array;
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
      // `| 0` keeps the codewords small integers: as doubles (what `%` on a 48-bit value gives) the
      // whole array became a double array, and the error correction below ran at half speed on it.
      group[j] = (value % 900) | 0;
      value = Math.floor(value / 900);
    }
    codewords.push(...group);
  }
  for (; i < data.length; i++) codewords.push(data[i] as number);
  return codewords;
}

/** The generator polynomial's coefficients for `count` check codewords: (x − 3)(x − 3²)…, low first. */
function generator(count: number): Int32Array {
  const g = new Int32Array(count + 1);
  g[0] = 1;
  let root = 1;
  for (let i = 0; i < count; i++) {
    root = (root * 3) % MODULUS;
    // Multiply by (x − root): shift up, then subtract root times the old coefficients.
    for (let j = i + 1; j > 0; j--) g[j] = ((g[j - 1] as number) + MODULUS - (((g[j] as number) * root) % MODULUS)) % MODULUS;
    g[0] = (MODULUS - (((g[0] as number) * root) % MODULUS)) % MODULUS;
  }
  return g;
}

/**
 * For each factor f, what dividing by the (monic) generator adds to the next `count` codewords:
 * −f·g[count − 1 − j] mod 929 at j, so the division below only adds (it runs data × checks
 * times: ~44 000 for a TED with its CAF) and reads one short run of memory per codeword.
 */
const additionTables = new Map<number, Int32Array>();
function additionTable(count: number): Int32Array {
  let table = additionTables.get(count);
  if (table) return table;
  const g = generator(count);
  table = new Int32Array(count * MODULUS);
  for (let f = 0; f < MODULUS; f++)
    for (let j = 0; j < count; j++) table[f * count + j] = (MODULUS - ((f * (g[count - 1 - j] as number)) % MODULUS)) % MODULUS;
  additionTables.set(count, table);
  return table;
}

/**
 * The check codewords: the data polynomial times x^count divided by the generator, by synthetic
 * division in place (the data, then `count` zeros, high first), the remainder negated. Sums are
 * reduced only where a quotient codeword is read: each place takes at most `count` additions
 * below 929 (under 2^19 at level 8), so they stay exact integers.
 */
export function errorCorrection(data: number[], level: number): number[] {
  const count = 1 << (level + 1); // a shift, not 2 **: a small integer keeps the loops below on integer arithmetic
  const additions = additionTable(count);
  const n = data.length;
  const sums = new Int32Array(n + count);
  sums.set(data);
  for (let k = 0; k < n; k++) {
    const row = ((sums[k] as number) % MODULUS) * count;
    const next = k + 1;
    // Two at a time: count is a power of two from 2 up.
    for (let j = 0; j < count; j += 2) {
      sums[next + j] = (sums[next + j] as number) + (additions[row + j] as number);
      sums[next + j + 1] = (sums[next + j + 1] as number) + (additions[row + j + 1] as number);
    }
  }
  const checks: number[] = [];
  for (let j = 0; j < count; j++) checks.push((MODULUS - ((sums[n + j] as number) % MODULUS)) % MODULUS);
  return checks;
}

/**
 * A writer of one row of packed bits, most significant first (the image mask's layout), from
 * byte `at` of `out`: `add` appends the low `bits` (≤ 18) of a pattern; under 8 bits are held
 * between calls, so the accumulator stays below 2^26; `end` writes the last, partial byte.
 */
function bitRow(out: Uint8Array, at: number) {
  let acc = 0;
  let held = 0;
  return {
    add(pattern: number, bits: number): void {
      acc = (acc << bits) | pattern;
      held += bits;
      while (held >= 8) {
        held -= 8;
        out[at++] = (acc >>> held) & 0xff;
      }
      acc &= (1 << held) - 1;
    },
    end(): void {
      if (held) out[at] = (acc << (8 - held)) & 0xff;
    },
  };
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
  const stride = Math.ceil(width / 8);
  const bits = new Uint8Array(stride * rows);
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
    const line = bitRow(bits, row * stride);
    line.add(START, 17);
    line.add(patterns[left] as number, 17);
    for (let c = 0; c < columns; c++) line.add(patterns[codewords[row * columns + c] as number] as number, 17);
    line.add(patterns[right] as number, 17);
    line.add(STOP, 18);
    line.end();
  }
  return { width, rows, stride, bits };
}
