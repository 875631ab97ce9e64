// The printed stamp's size (docs/dte-engine.md §12.5): the SII's instructions ask for modules of
// at least 0.170 mm, rows three modules tall, a symbol at most 3 × 9 cm, and a 6.35 mm quiet zone;
// the engines that cite the Manual de Muestras Impresas print it at least 2 × 5 cm. A TED's length
// varies, so the columns are chosen for the symbol at hand rather than fixed.
import { type Pdf417Symbol, pdf417, pdf417Rows } from "./pdf417.ts";

/** Millimetres to PDF points. */
export const mm = (value: number) => (value * 72) / 25.4;

export const STAMP = {
  minModule: 0.17,
  minHeight: 20,
  maxHeight: 30,
  minWidth: 50,
  maxWidth: 90,
  quietZone: 6.35,
  rowHeight: 3,
} as const;

export interface StampGeometry {
  symbol: Pdf417Symbol;
  /** One module's width in points. */
  module: number;
}

/** The module widths (mm) that keep `columns` × `rows` inside the bounds and `maxWidth`, as [low, high]. */
function moduleRange(columns: number, rows: number, maxWidth: number): [number, number] {
  const width = 17 * (columns + 4) + 1;
  const height = rows * STAMP.rowHeight;
  const low = Math.max(STAMP.minModule, STAMP.minHeight / height, STAMP.minWidth / width);
  const high = Math.min(STAMP.maxHeight / height, Math.min(STAMP.maxWidth, maxWidth) / width);
  return [low, high];
}

/**
 * The TED's symbol and module for a room `maxWidth` mm wide: of the column counts that fit every
 * bound, the one whose range of module widths has the widest middle (larger modules scan more
 * surely), drawn at that middle so rounding never crosses a bound. When none fits (a TED far
 * longer than the SII's fields allow), the widest symbol the room takes at the smallest module.
 */
export function stampGeometry(ted: Uint8Array, maxWidth: number): StampGeometry {
  let best: { columns: number; module: number } | null = null;
  for (let columns = 6; columns <= 30; columns++) {
    const [low, high] = moduleRange(columns, pdf417Rows(ted.length, columns), maxWidth);
    if (low > high) continue;
    const middle = (low + high) / 2;
    if (!best || middle > best.module) best = { columns, module: middle };
  }
  if (!best) {
    const columns = Math.max(1, Math.floor((maxWidth / STAMP.minModule - 1) / 17) - 4);
    best = { columns, module: STAMP.minModule };
  }
  return { symbol: pdf417(ted, best.columns), module: mm(best.module) };
}
