// A DTE's printed representation as PDF (docs/dte-engine.md §6.1–6.3), written directly: the
// standard Helvetica fonts in WinAnsi (accents and ñ print as they are), vector rectangles, the
// TED's PDF417 as a one-bit image mask, a JPEG or PNG logo. Letter paper (as many pages as the
// lines need), or an 80 mm roll whose height fits the document. A cedible copy adds the receipt
// box of Ley 19.983.
import { concatBytes } from "../../lib/encoding.ts";
import { encodeLatin1 } from "../../lib/latin1.ts";
import { yielder } from "../../lib/yielder.ts";
import type { PrintedDocument } from "./model.ts";
import { Canvas, type Image, n, type PdfOptions } from "./pdf-canvas.ts";
import { drawDocument, LETTER_HEIGHT, NO_CEDIBLE, type Stamp } from "./pdf-page.ts";
import type { Pdf417Symbol } from "./pdf417.ts";
import { STAMP, stampGeometry } from "./stamp-geometry.ts";

export type { Image, PdfOptions, PdfPaper } from "./pdf-canvas.ts";

/**
 * The PDF417 as a one-bit image mask: one sample a module, one image row a symbol row (drawn
 * three modules tall), the encoder's packed rows as they are. As ~3 400 rectangles the same bars
 * were ~50 KB of operators to write and compress for each document; as a mask they are rows ×
 * ⌈width / 8⌉ bytes (about 1.7 KB). A mask sample of 1 paints the fill colour (`/Decode [1 0]`),
 * and a mask is scaled without interpolation, so each module stays a sharp block as the
 * rectangles were.
 */
export function stampImage(symbol: Pdf417Symbol): Image {
  return { width: symbol.width, height: symbol.rows, dictionary: "/ImageMask true /BitsPerComponent 1 /Decode [1 0]", data: symbol.bits };
}

/**
 * zlib (RFC 1950), which is what PDF's FlateDecode reads, from node:zlib in one call per page
 * (Workers with nodejs_compat has it too): a page's few kilobytes through CompressionStream spent
 * more on the stream's machinery (a Blob, a pipe, a Response to collect it) than on compressing.
 * Imported on first use: on Workers, loading node:zlib at start-up added to every isolate's start.
 */
let zlib: Promise<typeof import("node:zlib")> | undefined;
async function deflater() {
  zlib ??= import("node:zlib");
  return (await zlib).deflateSync;
}

type Page = { width: number; height: number; content: Uint8Array };

/** Assembles the PDF file: catalog, pages, fonts, images, one content stream per page. */
function writePdf(pages: Page[], images: Map<string, Image>): Uint8Array {
  const objects: (string | Uint8Array)[][] = [];
  const add = (...parts: (string | Uint8Array)[]) => objects.push(parts) && objects.length;
  const stream = (dictionary: string, data: Uint8Array) => add(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, data, "\nendstream");
  add("<< /Type /Catalog /Pages 2 0 R >>");
  add(""); // the page tree, written once the pages exist
  const regular = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  const bold = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>");
  const xobjects = [...images].map(
    ([name, image]) =>
      `/${name} ${stream(`/Type /XObject /Subtype /Image /Width ${image.width} /Height ${image.height} ${image.dictionary}`, image.data)} 0 R`,
  );
  // One resources object every page refers to: written into each page, its list of every stamp's
  // image made the file grow with the square of the documents (~160 MB and a second of work at 2 000).
  const resources = `${add(`<< /Font << /F1 ${regular} 0 R /F2 ${bold} 0 R >> /XObject << ${xobjects.join(" ")} >> >>`)} 0 R`;
  const kids = pages.map((page) => {
    const content = stream("/Filter /FlateDecode", page.content);
    return add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${n(page.width)} ${n(page.height)}] /Resources ${resources} /Contents ${content} 0 R >>`,
    );
  });
  objects[1] = [`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`];

  const chunks: Uint8Array[] = [encodeLatin1("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")];
  let offset = chunks[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((parts, i) => {
    offsets.push(offset);
    const bytes = [
      encodeLatin1(`${i + 1} 0 obj\n`),
      ...parts.map((p) => (typeof p === "string" ? encodeLatin1(p) : p)),
      encodeLatin1("\nendobj\n"),
    ];
    for (const b of bytes) {
      chunks.push(b);
      offset += b.length;
    }
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  chunks.push(encodeLatin1(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`));
  return concatBytes(chunks);
}

/** The PDF: one page per copy (and the cedible copy after them when asked and the type allows it). */
export async function pdfDocument(docs: PrintedDocument[], options: PdfOptions): Promise<Uint8Array> {
  const width = options.papel === "carta" ? 612 : (80 / 25.4) * 72;
  // The roll's 80 mm less a quiet zone each side leaves 67.3 mm: room for the 5 cm minimum.
  const stampRoom = options.papel === "carta" ? STAMP.maxWidth : 80 - 2 * STAMP.quietZone;
  const pages: Page[] = [];
  const images = new Map<string, Image>(options.logo ? [["Logo", options.logo]] : []);
  // The pages are drawn and compressed synchronously: an envelope's thousands take slices.
  const pause = yielder();
  const deflate = await deflater();
  for (const [index, doc] of docs.entries()) {
    const copies: boolean[] = [...Array.from({ length: options.copias }, () => false)];
    if (options.cedible && !NO_CEDIBLE.has(doc.tipo)) copies.push(true);
    let stamp: Stamp | null = null;
    if (doc.ted) {
      stamp = { ...stampGeometry(doc.ted, stampRoom), name: `Ted${index + 1}` };
      images.set(stamp.name, stampImage(stamp.symbol));
    }
    for (const cedible of copies) {
      const canvas = new Canvas();
      const used = drawDocument(canvas, doc, stamp, options, width, cedible);
      const height = options.papel === "carta" ? LETTER_HEIGHT : used;
      for (const content of canvas.contents(height)) pages.push({ width, height, content: deflate(encodeLatin1(content)) });
    }
    await pause();
  }
  return writePdf(pages, images);
}
