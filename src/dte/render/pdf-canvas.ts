// The PDF's drawing: Helvetica's metrics for measuring and wrapping text, and a canvas of
// drawing commands placed from the top of the page, turned into PDF operators at the end.
import { encodeLatin1 } from "../../lib/latin1.ts";
import type { Pdf417Symbol } from "./pdf417.ts";

export type PdfPaper = "carta" | "80mm";

export interface PdfOptions {
  papel: PdfPaper;
  cedible: boolean;
  copias: number;
  resolucion: { numero: number; fecha: string } | null;
  /** `S.I.I. - <unidad>` under the box; the SII's regional office of the issuer. */
  oficina_sii: string;
  logo: Image | null;
}

export interface Image {
  width: number;
  height: number;
  /** The XObject dictionary entries besides size, and the stream bytes. */
  dictionary: string;
  data: Uint8Array;
}

// Helvetica and Helvetica-Bold widths (1/1000 em) for WinAnsi codes 32–255, from Adobe's
// published metrics of the standard 14 fonts; 0x7F–0x9F are not used here.
const HELVETICA =
  "278,278,355,556,556,889,667,191,333,333,389,584,278,333,278,278,556,556,556,556,556,556,556,556,556,556,278,278,584,584,584,556,1015,667,667,722,722,667,611,778,722,278,500,667,556,833,722,778,667,778,722,667,611,722,667,944,667,667,611,278,278,278,469,556,333,556,556,500,556,556,278,556,556,222,222,500,222,833,556,556,556,556,333,500,278,556,500,722,500,500,500,334,260,334,584,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,278,333,556,556,556,556,260,556,333,737,370,556,584,333,737,333,400,584,333,333,333,556,537,278,333,333,365,556,834,834,834,611,667,667,667,667,667,667,1000,722,667,667,667,667,278,278,278,278,722,722,778,778,778,778,778,584,778,722,722,722,722,667,667,611,556,556,556,556,556,556,889,500,556,556,556,556,278,278,278,278,556,556,556,556,556,556,556,584,611,556,556,556,556,500,556,500";
const HELVETICA_BOLD =
  "278,333,474,556,556,889,722,238,333,333,389,584,278,333,278,278,556,556,556,556,556,556,556,556,556,556,333,333,584,584,584,611,975,722,722,722,722,667,611,778,722,278,556,722,611,833,722,778,667,778,722,667,611,722,667,944,667,667,611,333,278,333,584,556,333,556,611,556,611,556,333,611,611,278,278,556,278,889,611,611,611,611,389,556,333,611,556,778,556,556,500,389,280,389,584,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,556,278,333,556,556,556,556,280,556,333,737,370,556,584,333,737,333,400,584,333,333,333,611,556,278,333,333,365,556,834,834,834,611,722,722,722,722,722,722,1000,722,667,667,667,667,278,278,278,278,722,722,778,778,778,778,778,584,778,722,722,722,722,667,667,611,556,556,556,556,556,556,889,556,556,556,556,556,278,278,278,278,611,611,611,611,611,611,611,584,611,611,611,611,611,556,611,556";
const WIDTHS = { regular: HELVETICA.split(",").map(Number), bold: HELVETICA_BOLD.split(",").map(Number) };

export type Weight = keyof typeof WIDTHS;

export function textWidth(text: string, size: number, weight: Weight = "regular"): number {
  let units = 0;
  for (const byte of encodeLatin1(text)) units += WIDTHS[weight][byte - 32] ?? 556;
  return (units * size) / 1000;
}

export function wrap(text: string, size: number, width: number, weight: Weight = "regular"): string[] {
  // Most labels and values fit: one measure instead of one per word.
  if (/^\S+( \S+)*$/.test(text) && textWidth(text, size, weight) <= width) return [text];
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (line && textWidth(candidate, size, weight) > width) {
      lines.push(line);
      line = word;
    } else line = candidate;
  }
  if (line) lines.push(line);
  return lines;
}

/** A PDF string literal: `(`, `)` and `\` escaped; the bytes are WinAnsi (ISO-8859-1 here). */
const literal = (text: string) => `(${text.replace(/[\\()]/g, (c) => `\\${c}`).replace(/[^\x20-\xff]/g, "?")})`;
export const n = (value: number) => (Math.round(value * 100) / 100).toString();
/** The PDF417's row height in modules. */
const ROW_HEIGHT = 3;

/** Drawing commands in page coordinates measured from the top, turned into PDF operators at the end. */
export class Canvas {
  private ops: ((height: number) => string)[] = [];
  private readonly pages = [this.ops];

  /** Starts a new page: what is drawn next goes on it, measured from its top. */
  newPage() {
    this.ops = [];
    this.pages.push(this.ops);
  }

  text(x: number, top: number, text: string, size: number, weight: Weight = "regular", align: "left" | "center" | "right" = "left") {
    const width = textWidth(text, size, weight);
    const left = align === "left" ? x : align === "center" ? x - width / 2 : x - width;
    const font = weight === "bold" ? "F2" : "F1";
    this.ops.push((h) => `BT /${font} ${n(size)} Tf ${n(left)} ${n(h - top - size)} Td ${literal(text)} Tj ET`);
  }

  rect(x: number, top: number, width: number, height: number, stroke: [number, number, number] = [0, 0, 0], lineWidth = 0.6) {
    this.ops.push(
      (h) => `q ${stroke.map(n).join(" ")} RG ${n(lineWidth)} w ${n(x)} ${n(h - top - height)} ${n(width)} ${n(height)} re S Q`,
    );
  }

  line(x1: number, top: number, x2: number) {
    this.ops.push((h) => `q 0.4 w ${n(x1)} ${n(h - top)} m ${n(x2)} ${n(h - top)} l S Q`);
  }

  image(name: string, x: number, top: number, width: number, height: number) {
    this.ops.push((h) => `q ${n(width)} 0 0 ${n(height)} ${n(x)} ${n(h - top - height)} cm /${name} Do Q`);
  }

  /**
   * The PDF417 at (x, top) from its image mask (`stampImage`), each module `module` points wide
   * and each row three modules tall, painted black.
   */
  barcode(symbol: Pdf417Symbol, name: string, x: number, top: number, module: number): { width: number; height: number } {
    const width = symbol.width * module;
    const height = symbol.rows * ROW_HEIGHT * module;
    this.ops.push((h) => `q 0 g ${n(width)} 0 0 ${n(height)} ${n(x)} ${n(h - top - height)} cm /${name} Do Q`);
    return { width, height };
  }

  /** Each page's operators, for pages `height` points tall. */
  contents(height: number): string[] {
    return this.pages.map((ops) => ops.map((op) => op(height)).join("\n"));
  }
}
