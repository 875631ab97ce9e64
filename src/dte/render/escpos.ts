// A DTE as an ESC/POS receipt (docs/dte-engine.md §7): text in the printer's code page, the
// SII's box (RUT, type, folio), the PDF's fields, lines and totals (sections.ts), and the TED as
// a PDF417 the printer draws itself (GS ( k, error correction level 5) from the TED's exact
// ISO-8859-1 bytes; then feed and cut.
import { commissionLine, type PrintedDocument } from "./model.ts";
import { money, pesos } from "./money.ts";
import {
  adjustmentLine,
  issuerExtras,
  lineAdjustment,
  otherCurrencyBlock,
  receiverFields,
  referenceText,
  totalsBlock,
  transferFields,
} from "./sections.ts";

export type Paper = "80mm" | "58mm";
export type CodePage = "WPC1252" | "PC850" | "PC858";

/** ESC t n for each code page (Epson numbering; clones may differ, hence the choice). */
const CODE_PAGE_NUMBER: Record<CodePage, number> = { PC850: 2, WPC1252: 16, PC858: 19 };
/** Characters per line in font A, and PDF417 columns that fit the printable width at 2 dots a module. */
const PAPER: Record<Paper, { width: number; columns: number }> = { "80mm": { width: 48, columns: 12 }, "58mm": { width: 32, columns: 7 } };

// The Spanish characters of PC850 (PC858 is the same with € at 0xD5).
const PC850: Record<string, number> = {
  Ç: 0x80,
  ü: 0x81,
  é: 0x82,
  â: 0x83,
  ä: 0x84,
  à: 0x85,
  ç: 0x87,
  ê: 0x88,
  ë: 0x89,
  è: 0x8a,
  ï: 0x8b,
  î: 0x8c,
  ì: 0x8d,
  Ä: 0x8e,
  É: 0x90,
  ô: 0x93,
  ö: 0x94,
  ò: 0x95,
  û: 0x96,
  ù: 0x97,
  Ö: 0x99,
  Ü: 0x9a,
  á: 0xa0,
  í: 0xa1,
  ó: 0xa2,
  ú: 0xa3,
  ñ: 0xa4,
  Ñ: 0xa5,
  ª: 0xa6,
  º: 0xa7,
  "¿": 0xa8,
  "¡": 0xad,
  Á: 0xb5,
  Â: 0xb6,
  À: 0xb7,
  Ê: 0xd2,
  Ë: 0xd3,
  È: 0xd4,
  Í: 0xd6,
  Î: 0xd7,
  Ï: 0xd8,
  Ì: 0xde,
  Ó: 0xe0,
  Ô: 0xe2,
  Ò: 0xe3,
  Ú: 0xe9,
  Û: 0xea,
  Ù: 0xeb,
  "°": 0xf8,
};
// windows-1252 differs from ISO-8859-1 only in 0x80–0x9F.
const WPC1252_HIGH: Record<string, number> = {
  "€": 0x80,
  "‚": 0x82,
  "„": 0x84,
  "…": 0x85,
  "‘": 0x91,
  "’": 0x92,
  "“": 0x93,
  "”": 0x94,
  "–": 0x96,
  "—": 0x97,
};

/** Text in the printer's code page; what it cannot show becomes `?`. */
export function encodeText(text: string, codePage: CodePage): number[] {
  const out = new ByteWriter();
  appendText(out, text, codePage);
  return [...out.done()];
}

/** Bytes written one by one into a buffer that doubles: a receipt of 1 000 lines is about 100 KB. */
class ByteWriter {
  #bytes = new Uint8Array(4096);
  #length = 0;

  push(...codes: number[]): void {
    for (const code of codes) this.byte(code);
  }

  byte(code: number): void {
    if (this.#length === this.#bytes.length) {
      const bigger = new Uint8Array(this.#bytes.length * 2);
      bigger.set(this.#bytes);
      this.#bytes = bigger;
    }
    this.#bytes[this.#length++] = code;
  }

  done(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }
}

/** Appends `text` in the code page to `out`: a receipt's lines are mostly ASCII, copied code by code. */
function appendText(out: ByteWriter, text: string, codePage: CodePage): void {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) < 0x80) out.byte(text.charCodeAt(i++));
  if (i === text.length) return;
  for (const ch of text.slice(i).normalize("NFC")) out.byte(codeFor(ch, codePage));
}

function codeFor(ch: string, codePage: CodePage): number {
  const code = ch.codePointAt(0) ?? 0x3f;
  if (code < 0x80) return code;
  if (codePage === "WPC1252") return WPC1252_HIGH[ch] ?? (code >= 0xa0 && code <= 0xff ? code : 0x3f);
  if (codePage === "PC858" && ch === "€") return 0xd5;
  return PC850[ch] ?? 0x3f;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = "";
    }
    line = line ? `${line} ${word}` : word;
    while (line.length > width) {
      lines.push(line.slice(0, width));
      line = line.slice(width);
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** `left` and `right` on one line; when they do not fit, `left` wrapped and `right` on a line of its own, nothing cut. */
function row(left: string, right: string, width: number): string[] {
  if (left.length + 1 + right.length <= width) return [`${left.padEnd(width - right.length)}${right}`];
  return [...wrap(left, width), right.padStart(width)];
}

/**
 * The PDF417 block: standard symbol, columns, 2-dot modules, rows 3 modules high, ECL 5, store, print.
 * Taller than the PDF's 3 cm: at 203 dpi a module is whole dots (1 dot is under the SII's 0.170 mm),
 * and 3 cm of 2-dot rows would need columns wider than the paper (docs/dte-engine.md §7).
 */
export function pdf417Commands(ted: Uint8Array, columns: number): number[] {
  const fn = (code: number, data: number[]) => [0x1d, 0x28, 0x6b, (data.length + 2) & 0xff, (data.length + 2) >> 8, 0x30, code, ...data];
  const stored = ted.length + 3;
  return [
    ...fn(0x46, [0]),
    ...fn(0x41, [columns]),
    ...fn(0x43, [2]),
    ...fn(0x44, [3]),
    ...fn(0x45, [0x30, 0x35]),
    0x1d,
    0x28,
    0x6b,
    stored & 0xff,
    stored >> 8,
    0x30,
    0x50,
    0x30,
    ...ted,
    ...fn(0x51, [0x30]),
  ];
}

export interface ReceiptOptions {
  papel: Paper;
  codepage: CodePage;
  /** The SII resolution that authorizes the issuer (from the envelope's carátula or the request). */
  resolucion?: { numero: number; fecha: string } | null;
}

const ESC = 0x1b;
const GS = 0x1d;

export function escposReceipt(doc: PrintedDocument, options: ReceiptOptions): Uint8Array {
  const { width, columns } = PAPER[options.papel];
  const out = new ByteWriter();
  out.push(ESC, 0x40, ESC, 0x74, CODE_PAGE_NUMBER[options.codepage]);
  const text = (line: string) => {
    appendText(out, line, options.codepage);
    out.byte(0x0a);
  };
  const align = (n: 0 | 1 | 2) => out.push(ESC, 0x61, n);
  const bold = (on: boolean) => out.push(ESC, 0x45, on ? 1 : 0);
  const rule = () => text("-".repeat(width));

  align(1);
  bold(true);
  for (const line of wrap(doc.emisor.nombre, width)) text(line);
  bold(false);
  for (const line of wrap(doc.emisor.giro, width)) text(line);
  for (const line of wrap([doc.emisor.direccion, doc.emisor.comuna].filter(Boolean).join(", "), width)) text(line);
  for (const extra of issuerExtras(doc.emisor)) for (const line of wrap(extra, width)) text(line);
  rule();
  bold(true);
  text(`R.U.T.: ${doc.emisor.rut}`);
  for (const line of wrap(doc.nombre_tipo, width)) text(line);
  text(`N° ${doc.folio}`);
  bold(false);
  rule();
  align(0);
  const field = ([label, value]: [string, string]) => {
    for (const line of wrap(`${label}: ${value}`, width)) text(line);
  };
  field(["Fecha", doc.fecha]);
  if (doc.emisor.vendedor) field(["Vendedor", doc.emisor.vendedor]);
  if (doc.receptor) for (const entry of receiverFields(doc.receptor)) field(entry);
  for (const entry of transferFields(doc)) field(entry);
  rule();
  for (const line of doc.lineas) {
    for (const part of wrap(line.nombre, width)) text(part);
    const quantity = line.cantidad !== null && line.precio !== null ? `  ${pesos(line.cantidad)} x ${pesos(line.precio)}` : "";
    const detail = [quantity, lineAdjustment(line), line.exento ? "Exento" : ""].filter(Boolean).join(" ");
    for (const part of row(detail, pesos(line.monto), width)) text(part);
  }
  rule();
  const moneda = doc.totales.moneda;
  const entries = (title: string, list: { text: string; value: string }[]) => {
    if (!list.length) return;
    text(title);
    for (const entry of list) {
      for (const part of wrap(entry.text, width)) text(part);
      if (entry.value) for (const part of row("", entry.value, width)) text(part);
    }
  };
  entries(
    "Descuentos y recargos globales",
    doc.descuentos_globales.map((g) => adjustmentLine(g, moneda)),
  );
  entries(
    "Comisiones y otros cargos",
    doc.comisiones.map((c) => {
      const { text: label, amount } = commissionLine(c);
      return { text: label, value: money(-amount, moneda) };
    }),
  );
  const { components, total, after } = totalsBlock(doc);
  for (const r of components) for (const part of row(r.label, r.text, width)) text(part);
  bold(true);
  for (const part of row(total.label, total.text, width)) text(part);
  bold(false);
  for (const r of after) for (const part of row(r.label, r.text, width)) text(part);
  const other = otherCurrencyBlock(doc);
  if (other) {
    for (const line of wrap(other.title, width)) text(line);
    for (const r of other.rows) for (const part of row(r.label, r.text, width)) text(part);
  }
  for (const ref of doc.referencias) {
    for (const line of wrap(`Ref.: ${referenceText(ref)}`, width)) text(line);
  }
  if (doc.ted) {
    align(1);
    out.push(0x0a, ...pdf417Commands(doc.ted, columns), 0x0a);
    text("Timbre Electrónico SII");
    if (options.resolucion) text(`Res. N° ${options.resolucion.numero} de ${options.resolucion.fecha.slice(0, 4)}`);
    text("Verifique documento: www.sii.cl");
  }
  out.push(ESC, 0x64, 4, GS, 0x56, 0x42, 0x00);
  return out.done();
}
