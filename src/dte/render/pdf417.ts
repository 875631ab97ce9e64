// The TED's PDF417 as vector outlines (research: dte-engine §6.3–6.4): error correction level 5,
// the TED's exact ISO-8859-1 bytes in byte compaction, rows three modules high. Only bwip-js's
// PDF417 encoder is imported, so the Worker carries none of its other symbologies.
import { pdf417 } from "bwip-js/generic";
import { decodeLatin1 } from "../../lib/latin1.ts";

export interface Pdf417Outline {
  /** Size in modules. */
  width: number;
  height: number;
  /** Closed outlines in module units, y downwards; fill them even-odd. */
  polygons: [number, number][][];
}

export function pdf417Outline(ted: Uint8Array, columns: number): Pdf417Outline {
  const outline: Pdf417Outline = { width: 0, height: 0, polygons: [] };
  const drawing = {
    setopts() {},
    scale: () => null,
    measure: () => ({ width: 0, ascent: 0, descent: 0 }),
    init(width: number, height: number) {
      outline.width = width;
      outline.height = height;
    },
    line() {},
    polygon(points: [number, number][]) {
      outline.polygons.push(points.map(([x, y]) => [x, y]));
    },
    hexagon() {},
    ellipse() {},
    fill() {},
    text() {},
    end: () => outline,
  };
  pdf417({ text: decodeLatin1(ted), binarytext: true, eclevel: 5, columns, rowmult: 3, scale: 1 } as never, drawing as never);
  return outline;
}
