// A DTE's printed representation as PDF (docs/dte-engine.md §6.1–6.3), written directly: the
// standard Helvetica fonts in WinAnsi (accents and ñ print as they are), vector rectangles, the
// TED's PDF417 as a one-bit image mask, a JPEG or PNG logo. Letter paper, or an 80 mm roll whose
// height fits the document. A cedible copy adds the receipt box of Ley 19.983.
import { concatBytes } from "../../lib/encoding.ts";
import { encodeLatin1 } from "../../lib/latin1.ts";
import { yielder } from "../../lib/yielder.ts";
import { commissionLine, type PrintedDocument, pesos } from "./model.ts";
import { type Pdf417Symbol, pdf417 } from "./pdf417.ts";

export type PdfPaper = "carta" | "80mm";

export interface PdfOptions {
  papel: PdfPaper;
  cedible: boolean;
  copias: number;
  resolucion: { numero: number; fecha: string } | null;
  /** `S.I.I. - <unidad>` under the box; the SII's regional office of the issuer. */
  oficina_sii: string | null;
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

type Weight = keyof typeof WIDTHS;

export function textWidth(text: string, size: number, weight: Weight = "regular"): number {
  let units = 0;
  for (const byte of encodeLatin1(text)) units += WIDTHS[weight][byte - 32] ?? 556;
  return (units * size) / 1000;
}

function wrap(text: string, size: number, width: number, weight: Weight = "regular"): string[] {
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
const n = (value: number) => (Math.round(value * 100) / 100).toString();
/** The PDF417's row height in modules. */
const ROW_HEIGHT = 3;

/** Drawing commands in page coordinates measured from the top, turned into PDF operators at the end. */
class Canvas {
  private readonly ops: ((height: number) => string)[] = [];

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

  content(height: number): string {
    return this.ops.map((op) => op(height)).join("\n");
  }
}

/**
 * The PDF417 as a one-bit image mask: one sample a module, one image row a symbol row (drawn
 * three modules tall). As ~3 400 rectangles the same bars were ~50 KB of operators to write and
 * compress for each document; as a mask they are rows × ⌈width / 8⌉ bytes (about 1.7 KB). A mask
 * sample of 1 paints the fill colour (`/Decode [1 0]`), and a mask is scaled without
 * interpolation, so each module stays a sharp block as the rectangles were.
 */
export function stampImage(symbol: Pdf417Symbol): Image {
  const stride = Math.ceil(symbol.width / 8);
  const data = new Uint8Array(stride * symbol.rows);
  symbol.bars.forEach((bars, row) => {
    const base = row * stride;
    for (let i = 0; i < bars.length; i += 2) {
      const start = bars[i] as number;
      const end = start + (bars[i + 1] as number);
      for (let m = start; m < end; m++) data[base + (m >> 3)] = (data[base + (m >> 3)] as number) | (0x80 >> (m & 7));
    }
  });
  return { width: symbol.width, height: symbol.rows, dictionary: "/ImageMask true /BitsPerComponent 1 /Decode [1 0]", data };
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

const RED: [number, number, number] = [0.8, 0, 0];
const NO_CEDIBLE = new Set([39, 41, 56, 61, 110, 111, 112]);

/** One copy of the document on a canvas of the given width; returns the height used. */
function drawDocument(
  canvas: Canvas,
  doc: PrintedDocument,
  stamp: { symbol: Pdf417Symbol; name: string } | null,
  options: PdfOptions,
  width: number,
  cedible: boolean,
): number {
  const roll = options.papel === "80mm";
  const margin = roll ? 8 : 36;
  const inner = width - 2 * margin;
  const small = roll ? 7 : 8;
  const body = roll ? 7.5 : 9;
  let y = margin;

  // Issuer (left) and the SII box (right); on a roll, one under the other.
  const boxWidth = roll ? inner : 190;
  const boxX = roll ? margin : width - margin - boxWidth;
  let issuerX = margin;
  if (options.logo && !roll) {
    const logoHeight = 60;
    const logoWidth = (options.logo.width / options.logo.height) * logoHeight;
    canvas.image("Logo", margin, y, Math.min(logoWidth, 120), logoHeight);
    issuerX += Math.min(logoWidth, 120) + 10;
  }
  const issuerWidth = roll ? inner : boxX - issuerX - 12;
  const issuerLines: [string, Weight, number][] = [
    ...wrap(doc.emisor.nombre, body + 3, issuerWidth, "bold").map((l): [string, Weight, number] => [l, "bold", body + 3]),
    ...wrap(doc.emisor.giro, small, issuerWidth).map((l): [string, Weight, number] => [l, "regular", small]),
    ...wrap([doc.emisor.direccion, doc.emisor.comuna].filter(Boolean).join(", "), small, issuerWidth).map((l): [string, Weight, number] => [
      l,
      "regular",
      small,
    ]),
  ];
  let issuerY = y;
  for (const [line, weight, size] of issuerLines) {
    canvas.text(roll ? width / 2 : issuerX, issuerY, line, size, weight, roll ? "center" : "left");
    issuerY += size + 3;
  }
  const boxTop = roll ? issuerY + 6 : y;
  const boxLines = [`R.U.T.: ${doc.emisor.rut}`, ...wrap(doc.nombre_tipo, body + 2, boxWidth - 16, "bold"), `N° ${doc.folio}`];
  const boxHeight = boxLines.length * (body + 6) + 12;
  canvas.rect(boxX, boxTop, boxWidth, boxHeight, RED, 1.5);
  boxLines.forEach((line, i) => {
    canvas.text(boxX + boxWidth / 2, boxTop + 8 + i * (body + 6), line, body + 2, "bold", "center");
  });
  let sii = boxTop + boxHeight + 4;
  canvas.text(boxX + boxWidth / 2, sii, options.oficina_sii ? `S.I.I. - ${options.oficina_sii}` : "S.I.I.", small, "bold", "center");
  sii += small + 4;
  y = Math.max(issuerY, sii) + 10;

  // Emission and receiver.
  const field = (label: string, value: string) => {
    if (!value) return;
    canvas.text(margin, y, `${label}:`, small, "bold");
    const labelWidth = roll ? 58 : 80;
    for (const line of wrap(value, small, inner - labelWidth)) {
      canvas.text(margin + labelWidth, y, line, small);
      y += small + 3;
    }
  };
  field("Fecha emisión", doc.fecha);
  if (doc.receptor) {
    field("Señor(es)", doc.receptor.nombre);
    field("R.U.T.", doc.receptor.rut);
    field("Giro", doc.receptor.giro);
    field("Dirección", [doc.receptor.direccion, doc.receptor.comuna].filter(Boolean).join(", "));
  }
  y += 6;

  // Detail.
  const amountX = width - margin;
  const qtyX = roll ? margin + inner * 0.55 : margin + inner * 0.62;
  const priceX = roll ? margin + inner * 0.78 : margin + inner * 0.8;
  canvas.line(margin, y, width - margin);
  y += 3;
  canvas.text(margin, y, "Detalle", small, "bold");
  canvas.text(qtyX, y, "Cant.", small, "bold", "right");
  canvas.text(priceX, y, "Precio", small, "bold", "right");
  canvas.text(amountX, y, "Total", small, "bold", "right");
  y += small + 4;
  canvas.line(margin, y, width - margin);
  y += 3;
  for (const item of doc.lineas) {
    const lines = wrap(item.nombre + (item.exento ? " (exento)" : ""), body, qtyX - margin - 40);
    if (item.cantidad !== null) canvas.text(qtyX, y, `${pesos(item.cantidad)} ${item.unidad}`.trim(), body, "regular", "right");
    if (item.precio !== null) canvas.text(priceX, y, pesos(item.precio), body, "regular", "right");
    canvas.text(amountX, y, pesos(item.monto), body, "regular", "right");
    for (const line of lines) {
      canvas.text(margin, y, line, body);
      y += body + 3;
    }
    if (item.descripcion) {
      for (const line of wrap(item.descripcion, small, qtyX - margin - 40)) {
        canvas.text(margin + 6, y, line, small);
        y += small + 2;
      }
    }
  }
  canvas.line(margin, y, width - margin);
  y += 6;

  // References.
  if (doc.referencias.length) {
    canvas.text(margin, y, "Referencias", small, "bold");
    y += small + 3;
    for (const ref of doc.referencias) {
      for (const line of wrap(`${ref.tipo} N° ${ref.folio} del ${ref.fecha}: ${ref.razon}`, small, inner)) {
        canvas.text(margin, y, line, small);
        y += small + 3;
      }
    }
    y += 4;
  }

  // A liquidación-factura's commissions and other charges, each with what it takes off.
  if (doc.comisiones.length) {
    canvas.text(margin, y, "Comisiones y otros cargos", small, "bold");
    y += small + 3;
    for (const c of doc.comisiones) {
      const { text, amount } = commissionLine(c);
      canvas.text(amountX, y, `- ${pesos(amount)}`, small, "regular", "right");
      for (const line of wrap(text, small, qtyX - margin - 40)) {
        canvas.text(margin, y, line, small);
        y += small + 3;
      }
    }
    y += 4;
  }

  // Totals (right) and the stamp (left; on a roll, below the totals).
  const totalsTop = y;
  const total = (label: string, value: number | null, weight: Weight = "regular") => {
    if (value === null) return;
    canvas.text(amountX - 70, y, label, body, weight, "right");
    canvas.text(amountX, y, `$ ${pesos(value)}`, body, weight, "right");
    y += body + 4;
  };
  total("Neto", doc.totales.neto);
  total("Exento", doc.totales.exento);
  total(`IVA ${doc.totales.tasa_iva ?? 19}%`, doc.totales.iva);
  total("Comisiones", doc.totales.comisiones === null ? null : -doc.totales.comisiones);
  total("TOTAL", doc.totales.total, "bold");
  let stampBottom = y;
  if (stamp) {
    const module = roll ? 0.72 : 0.75;
    const stampTop = roll ? y + 8 : totalsTop;
    const left = roll ? margin + (inner - stamp.symbol.width * module) / 2 : margin;
    const size = canvas.barcode(stamp.symbol, stamp.name, left, stampTop, module);
    const stampCenter = roll ? width / 2 : margin + size.width / 2;
    let legend = stampTop + size.height + 4;
    const legends = [
      "Timbre Electrónico S.I.I.",
      ...(options.resolucion ? [`Resolución N° ${options.resolucion.numero} de ${options.resolucion.fecha.slice(0, 4)}`] : []),
      "Verifique documento: www.sii.cl",
    ];
    for (const text of legends) {
      canvas.text(stampCenter, legend, text, small, "bold", "center");
      legend += small + 3;
    }
    stampBottom = Math.max(stampBottom, legend);
  }
  y = stampBottom + 8;

  if (cedible) {
    const boxHeight = roll ? 128 : 90;
    canvas.rect(margin, y, inner, boxHeight);
    canvas.text(margin + 6, y + 6, "ACUSE DE RECIBO", small, "bold");
    const fields = ["Nombre:", "R.U.T.:", "Fecha:", "Recinto:", "Firma:"];
    fields.forEach((label, i) => {
      const column = roll ? 0 : i % 2;
      const rowIndex = roll ? i : Math.floor(i / 2);
      canvas.text(margin + 6 + column * (inner / 2), y + 20 + rowIndex * (small + 6), label, small);
    });
    const law =
      "El acuse de recibo que se declara en este acto, de acuerdo a lo dispuesto en la letra b) del Art. 4°, y la letra c) del Art. 5° de la Ley 19.983, acredita que la entrega de mercaderías o servicio(s) prestado(s) ha(n) sido recibido(s).";
    let lawY = y + boxHeight - (roll ? 34 : 22);
    for (const line of wrap(law, 5.5, inner - 12)) {
      canvas.text(margin + 6, lawY, line, 5.5);
      lawY += 7;
    }
    y += boxHeight + 4;
    canvas.text(width - margin, y, doc.tipo === 52 ? "CEDIBLE CON SU FACTURA" : "CEDIBLE", body + 2, "bold", "right");
    y += body + 8;
  }
  return y + margin / 2;
}

/** The PDF: one page per copy (and the cedible copy after them when asked and the type allows it). */
export async function pdfDocument(docs: PrintedDocument[], options: PdfOptions): Promise<Uint8Array> {
  const width = options.papel === "carta" ? 612 : (80 / 25.4) * 72;
  const pages: Page[] = [];
  const images = new Map<string, Image>(options.logo ? [["Logo", options.logo]] : []);
  // The pages are drawn and compressed synchronously: an envelope's thousands take slices.
  const pause = yielder();
  const deflate = await deflater();
  for (const [index, doc] of docs.entries()) {
    const copies: boolean[] = [...Array.from({ length: options.copias }, () => false)];
    if (options.cedible && !NO_CEDIBLE.has(doc.tipo)) copies.push(true);
    let stamp: { symbol: Pdf417Symbol; name: string } | null = null;
    if (doc.ted) {
      stamp = { symbol: pdf417(doc.ted, 12), name: `Ted${index + 1}` };
      images.set(stamp.name, stampImage(stamp.symbol));
    }
    for (const cedible of copies) {
      const canvas = new Canvas();
      const used = drawDocument(canvas, doc, stamp, options, width, cedible);
      const height = options.papel === "carta" ? 792 : used;
      pages.push({ width, height, content: deflate(encodeLatin1(canvas.content(height))) });
    }
    await pause();
  }
  return writePdf(pages, images);
}
