// Reading the rows of an XLSX workbook's first sheet without building a document: the shared
// strings and the sheet are inflated as streams and scanned element by element (`<si>`, `<row>`),
// so memory holds the packed file, the string table and one chunk of XML, never the whole sheet.
// And the reverse, a small writer (shared and inline strings, numbers, gaps) for the sandbox.
import { escapeXml, unescapeXml } from "./xml.ts";
import { entryStream, entryText, type ZipEntry, zipArchive, zipEntries } from "./zip.ts";

export type CellValue = string | number | null;

export interface SheetRow {
  /** 1-based row number as the sheet gives it (rows may be skipped). */
  number: number;
  /** Cells by column (A = 0); absent cells are null. */
  cells: CellValue[];
}

export class XlsxError extends Error {}

/** An element longer than this (a row, a string item) is no sheet the gateway reads: refused, not buffered without end. */
export const MAX_ELEMENT_CHARS = 256 * 1024;

const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;
/** Whether the character after a tag's name ends the name (so `<c …>`, not `<col …>`). */
const endsName = (code: number) => isSpace(code) || code === 62 || code === 47;

/**
 * The complete elements named `tag` in `buffer` (`<tag …>…</tag>` or `<tag …/>`), each passed to
 * `each`; returns where the text still needed starts (an element not yet closed, or a tail that
 * may begin one). Found with indexOf: a sheet has tens of thousands of rows.
 */
function splitElements(buffer: string, tag: string, each: (xml: string) => void): number {
  const open = `<${tag}`;
  const close = `</${tag}>`;
  let at = 0;
  for (;;) {
    let start = buffer.indexOf(open, at);
    while (start !== -1 && start + open.length < buffer.length && !endsName(buffer.charCodeAt(start + open.length)))
      start = buffer.indexOf(open, start + open.length);
    if (start === -1) return Math.max(at, buffer.length - open.length);
    const tagEnd = buffer.indexOf(">", start);
    if (tagEnd === -1) return start;
    let end = tagEnd + 1;
    if (buffer.charCodeAt(tagEnd - 1) !== 47) {
      const closing = buffer.indexOf(close, tagEnd);
      if (closing === -1) return start;
      end = closing + close.length;
    }
    each(buffer.slice(start, end));
    at = end;
  }
}

/** Decoded text of a stream, a chunk at a time, and what is left of it between chunks. */
class StreamText {
  private readonly decoder = new TextDecoder();
  buffer = "";
  done = false;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }

  /** Appends the next chunk to `buffer`; false once the stream has ended. */
  async more(): Promise<boolean> {
    if (this.done) return false;
    const next = await this.reader.read();
    this.done = next.done;
    this.buffer += next.done ? this.decoder.decode() : this.decoder.decode(next.value, { stream: true });
    return true;
  }

  release(): void {
    this.reader.releaseLock();
  }
}

/** The complete `tag` elements, those each chunk completes together; only the unfinished rest is kept. */
async function* elementBatches(text: StreamText, tag: string): AsyncGenerator<string[]> {
  try {
    const tooLong = () => new XlsxError(`a <${tag}> element is longer than ${MAX_ELEMENT_CHARS} characters`);
    do {
      const batch: string[] = [];
      const rest = splitElements(text.buffer, tag, (xml) => {
        if (xml.length > MAX_ELEMENT_CHARS) throw tooLong();
        batch.push(xml);
      });
      text.buffer = text.buffer.slice(rest);
      if (text.buffer.length > MAX_ELEMENT_CHARS) throw tooLong();
      if (batch.length > 0) yield batch;
    } while (await text.more());
  } finally {
    text.release();
  }
}

/**
 * Complete elements named `tag` (`<tag …>…</tag>` or `<tag …/>`), in order, from a stream of XML.
 * Only the text after the last complete element is kept between chunks.
 */
export async function* xmlElements(stream: ReadableStream<Uint8Array>, tag: string): AsyncGenerator<string> {
  for await (const batch of elementBatches(new StreamText(stream), tag)) yield* batch;
}

/** The text of a string item (`<si>` or `<is>`): its `<t>` runs joined, phonetic hints left out. */
function itemText(xml: string): string {
  let text = "";
  for (const [, run = ""] of xml.replace(/<rPh[\s>][\s\S]*?<\/rPh>/g, "").matchAll(/<t(?:\s[^>]*)?>([\s\S]*?)<\/t>/g)) text += run;
  return unescapeXml(text);
}

/** `A` → 0, `Z` → 25, `AA` → 26. */
export function columnIndex(letters: string): number {
  let index = 0;
  for (const ch of letters.toUpperCase()) index = index * 26 + (ch.charCodeAt(0) - 64);
  return index - 1;
}

/** `0` → `A`, `26` → `AA`. */
export function columnLetters(index: number): string {
  let letters = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** Excel's last column is XFD: a reference past it is no sheet's. */
const MAX_COLUMNS = 16_384;
/** Excel's last row. */
const EXCEL_ROWS = 1_048_576;

/** The value of the attribute written `name` (`r="`) in one tag's text, or undefined. */
function attribute(tag: string, name: string): string | undefined {
  for (let at = tag.indexOf(name); at !== -1; at = tag.indexOf(name, at + 1)) {
    if (at === 0 || !isSpace(tag.charCodeAt(at - 1))) continue;
    const start = at + name.length;
    const end = tag.indexOf('"', start);
    return end === -1 ? undefined : tag.slice(start, end);
  }
  return undefined;
}

const isDigits = (text: string) => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 48 || text.charCodeAt(i) > 57) return false;
  return text.length > 0;
};

/** Where the value of the one-letter attribute `name` (`r`, `t`) starts in the tag xml[from, to), or -1. */
function attributeAt(xml: string, name: number, from: number, to: number): number {
  for (let i = from + 1; i + 2 < to; i++)
    if (xml.charCodeAt(i) === name && xml.charCodeAt(i + 1) === 61 && xml.charCodeAt(i + 2) === 34 && isSpace(xml.charCodeAt(i - 1)))
      return i + 3;
  return -1;
}
const R = 114;
const T = 116;

/** The column of the cell reference starting at `at` (`B12` → 1), or -1 when it does not start with letters. */
function columnAt(xml: string, at: number): number {
  let index = 0;
  let i = at;
  for (; i < xml.length && index <= MAX_COLUMNS; i++) {
    const code = xml.charCodeAt(i) | 32; // lower case
    if (code < 97 || code > 122) break;
    index = index * 26 + (code - 96);
  }
  return i === at ? -1 : index - 1;
}

/** A cell's type from its `t` attribute starting at `at`: `s` and `n`, the common ones, without a copy. */
function typeAt(xml: string, at: number): string {
  if (at === -1) return "n";
  const quote = xml.indexOf('"', at);
  if (quote === at + 1) {
    const code = xml.charCodeAt(at);
    if (code === 115) return "s";
    if (code === 110) return "n";
  }
  return xml.slice(at, quote === -1 ? at : quote);
}

/** The text of a cell's `<v>` (`<v>12</v>`, `<v xml:space="preserve"> 1</v>`), or undefined. */
function valueText(inner: string): string | undefined {
  for (let open = inner.indexOf("<v"); open !== -1; open = inner.indexOf("<v", open + 2)) {
    const tagEnd = inner.indexOf(">", open);
    if (tagEnd === -1) return undefined;
    if (!endsName(inner.charCodeAt(open + 2)) || inner.charCodeAt(tagEnd - 1) === 47) continue;
    const close = inner.indexOf("</v>", tagEnd);
    return close === -1 ? undefined : inner.slice(tagEnd + 1, close);
  }
  return undefined;
}

/** The cell xml[from, close)'s value text: `<v>` first, as writers put it, read in place; else searched. */
function cellValue(xml: string, from: number, close: number): string | undefined {
  if (xml.startsWith("<v>", from)) {
    const end = xml.indexOf("</v>", from + 3);
    if (end !== -1 && end < close) return xml.slice(from + 3, end);
  }
  return from === close ? undefined : valueText(xml.slice(from, close));
}

/** The number a cell xml[from, close) holds as `<v>` and at most 15 decimal digits, read in place; else -1. */
function wholeNumberAt(xml: string, from: number, close: number): number {
  if (!xml.startsWith("<v>", from)) return -1;
  let value = 0;
  let i = from + 3;
  for (; i < close && i < from + 18; i++) {
    const digit = xml.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return i > from + 3 && i + 4 <= close && xml.startsWith("</v>", i) ? value : -1;
}

// Cells and their attributes are found with indexOf and character codes within the row and the
// tag rather than with regular expressions or copies of each: a sheet has over a million cells.
function parseRow(xml: string, previous: number, shared: readonly string[]): SheetRow {
  const openEnd = xml.indexOf(">");
  const written = attribute(xml.slice(0, openEnd), 'r="');
  const number = written !== undefined && isDigits(written) ? Number(written) : previous + 1;
  const cells: CellValue[] = [];
  let column = -1;
  let at = openEnd;
  for (let start = xml.indexOf("<c", at); start !== -1; start = xml.indexOf("<c", at)) {
    if (!endsName(xml.charCodeAt(start + 2))) {
      at = start + 2;
      continue;
    }
    const tagEnd = xml.indexOf(">", start);
    if (tagEnd === -1) break;
    const empty = xml.charCodeAt(tagEnd - 1) === 47; // `<c r="B2"/>`
    const attrsEnd = empty ? tagEnd - 1 : tagEnd;
    let close = tagEnd + 1;
    if (empty) at = tagEnd + 1;
    else {
      close = xml.indexOf("</c>", tagEnd);
      if (close === -1) throw new XlsxError(`row ${number} has a cell that is not closed`);
      at = close + 4;
    }
    const ref = attributeAt(xml, R, start + 2, attrsEnd);
    const columnWritten = ref === -1 ? -1 : columnAt(xml, ref);
    column = columnWritten >= 0 ? columnWritten : column + 1;
    if (column >= MAX_COLUMNS) throw new XlsxError(`row ${number} has a cell past the last column a sheet has`);
    const type = typeAt(xml, attributeAt(xml, T, start + 2, attrsEnd));
    let value: CellValue = null;
    if (type === "inlineStr") value = empty ? "" : itemText(xml.slice(tagEnd + 1, close));
    else if (!empty && type !== "e") {
      // Most cells are `<v>digits</v>`: a shared string's index or a whole number, read without a copy.
      const whole = type === "s" || type === "n" ? wholeNumberAt(xml, tagEnd + 1, close) : -1;
      const raw = whole >= 0 ? whole : cellValue(xml, tagEnd + 1, close);
      if (raw === undefined) value = null;
      else if (type === "s") {
        value = shared[Number(raw)] ?? null;
        if (value === null) throw new XlsxError(`row ${number} refers to shared string ${raw}, which the workbook does not have`);
      } else if (type === "n") value = Number(raw);
      else value = unescapeXml(raw as string); // str (a formula's text), b, d
    }
    while (cells.length < column) cells.push(null);
    cells[column] = value;
  }
  return { number, cells };
}

/** The path of the workbook's first sheet (by the workbook's own order), e.g. `xl/worksheets/sheet1.xml`. */
async function firstSheetPath(zip: Uint8Array, entries: Map<string, ZipEntry>): Promise<string> {
  const workbook = entries.get("xl/workbook.xml");
  const rels = entries.get("xl/_rels/workbook.xml.rels");
  if (workbook && rels) {
    const id = /<sheet\s[^>]*?r:id="([^"]+)"/.exec(await entryText(zip, workbook))?.[1];
    const target = id && new RegExp(`<Relationship\\s[^>]*?Id="${id}"[^>]*>`).exec(await entryText(zip, rels))?.[0];
    const path = target ? /Target="([^"]+)"/.exec(target)?.[1] : undefined;
    if (path) return path.startsWith("/") ? path.slice(1) : `xl/${path}`;
  }
  return "xl/worksheets/sheet1.xml";
}

/** The first sheet of a workbook, opened: what it says of itself before its rows, and its rows. */
export interface Sheet {
  /**
   * The last row its `<dimension>` names (`A1:T20012` → 20012; ECMA-376 Part 1 §18.3.1.35, which
   * Excel writes), read before any row; null when the sheet has none, or one that spans every row.
   */
  declaredRows: number | null;
  /** Counts its `<row>` elements without reading their cells: one more pass, for a sheet without a dimension. */
  countRows(): Promise<number>;
  /** Its rows in order, those of each inflated chunk together. Call once. */
  batches(): AsyncGenerator<SheetRow[]>;
}

/** The last row of a `<dimension ref="A1:T20012"/>` found before the first row, or null. */
function declaredLastRow(prefix: string): number | null {
  const at = prefix.indexOf("<dimension");
  const end = at === -1 ? -1 : prefix.indexOf(">", at);
  const ref = end === -1 ? undefined : attribute(prefix.slice(at + 10, end), 'ref="');
  if (ref === undefined) return null;
  const last = ref.slice(ref.lastIndexOf(":") + 1);
  let digits = last.length;
  while (digits > 0 && isDigits(last.charAt(digits - 1))) digits--;
  const row = digits < last.length ? Number(last.slice(digits)) : null;
  // Some writers declare the whole sheet (`A1:XFD1048576`): that says nothing of its rows.
  return row !== null && row < EXCEL_ROWS ? row : null;
}

/** Opens the workbook's first sheet, reading only as much of it as comes before its first row. */
export async function openSheet(zip: Uint8Array): Promise<Sheet> {
  const entries = zipEntries(zip);
  const sheetPath = await firstSheetPath(zip, entries);
  const sheet = entries.get(sheetPath);
  if (!sheet) throw new XlsxError(`the workbook has no ${sheetPath}`);
  const text = new StreamText(entryStream(zip, sheet));
  // The dimension comes before `<sheetData>` (ECMA-376's order): what precedes the first row is small.
  while (!/<row[\s/>]/.test(text.buffer) && text.buffer.length <= MAX_ELEMENT_CHARS && (await text.more()));
  const declaredRows = declaredLastRow(text.buffer.slice(0, MAX_ELEMENT_CHARS));
  const strings = entries.get("xl/sharedStrings.xml");
  return {
    declaredRows,
    async countRows() {
      let count = 0;
      for await (const batch of elementBatches(new StreamText(entryStream(zip, sheet)), "row")) count += batch.length;
      return count;
    },
    async *batches() {
      const shared: string[] = [];
      if (strings)
        for await (const items of elementBatches(new StreamText(entryStream(zip, strings)), "si"))
          for (const item of items) shared.push(itemText(item));
      let previous = 0;
      for await (const batch of elementBatches(text, "row")) {
        yield batch.map((xml) => {
          const row = parseRow(xml, previous, shared);
          previous = row.number;
          return row;
        });
      }
    },
  };
}

/** The rows of the workbook's first sheet, in order, one at a time. */
export async function* sheetRows(zip: Uint8Array): AsyncGenerator<SheetRow> {
  for await (const batch of (await openSheet(zip)).batches()) yield* batch;
}

/** A cell to write: text goes to the shared strings unless `inline`; null leaves the cell out. */
export type WriteCell = string | number | null | { inline: string };

export interface WriteSheet {
  name: string;
  /** Rows from row 1; called once, while the sheet is packed. */
  rows: () => Iterable<WriteCell[]>;
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/** An XLSX workbook; the shared strings are packed after the sheets, as Excel does. */
export function writeXlsx(
  sheets: readonly WriteSheet[],
  options: { deflate?: boolean; dimension?: boolean } = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const shared = new Map<string, number>();
  const sheetXml = function* (sheet: WriteSheet): Iterable<string> {
    const rows = [...sheet.rows()];
    // The range the sheet uses, as Excel writes it before the rows (`dimension: false` leaves it out).
    const width = rows.reduce((most, row) => Math.max(most, row.length), 1);
    const dimension = options.dimension === false ? "" : `<dimension ref="A1:${columnLetters(width - 1)}${Math.max(1, rows.length)}"/>`;
    yield `${XML_HEAD}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">${dimension}<sheetData>`;
    let number = 0;
    for (const row of rows) {
      number++;
      let xml = `<row r="${number}">`;
      row.forEach((cell, column) => {
        if (cell === null) return;
        const ref = `${columnLetters(column)}${number}`;
        if (typeof cell === "number") xml += `<c r="${ref}"><v>${cell}</v></c>`;
        else if (typeof cell === "object") xml += `<c r="${ref}" t="inlineStr"><is><t>${escapeXml(cell.inline)}</t></is></c>`;
        else {
          let index = shared.get(cell);
          if (index === undefined) {
            index = shared.size;
            shared.set(cell, index);
          }
          xml += `<c r="${ref}" t="s"><v>${index}</v></c>`;
        }
      });
      yield `${xml}</row>`;
    }
    yield "</sheetData></worksheet>";
  };
  const sheetEntries = sheets.map((sheet, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, text: () => sheetXml(sheet) }));
  return zipArchive(
    [
      {
        name: "[Content_Types].xml",
        text: () => [
          `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`,
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>',
          '<Default Extension="xml" ContentType="application/xml"/>',
          '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>',
          ...sheetEntries.map(
            (e) =>
              `<Override PartName="/${e.name}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
          ),
          '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>',
          "</Types>",
        ],
      },
      {
        name: "_rels/.rels",
        text: () => [
          `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`,
          `<Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
        ],
      },
      {
        name: "xl/workbook.xml",
        text: () => [
          `${XML_HEAD}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheets>`,
          ...sheets.map((s, i) => `<sheet name="${escapeXml(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`),
          "</sheets></workbook>",
        ],
      },
      {
        name: "xl/_rels/workbook.xml.rels",
        text: () => [
          `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`,
          ...sheetEntries.map((e, i) => `<Relationship Id="rId${i + 1}" Type="${REL_NS}/worksheet" Target="${e.name.slice(3)}"/>`),
          `<Relationship Id="rId${sheets.length + 1}" Type="${REL_NS}/sharedStrings" Target="sharedStrings.xml"/>`,
          "</Relationships>",
        ],
      },
      ...sheetEntries,
      {
        name: "xl/sharedStrings.xml",
        text: function* () {
          yield `${XML_HEAD}<sst xmlns="${MAIN_NS}" count="${shared.size}" uniqueCount="${shared.size}">`;
          for (const text of shared.keys()) yield `<si><t xml:space="preserve">${escapeXml(text)}</t></si>`;
          yield "</sst>";
        },
      },
    ],
    { deflate: options.deflate },
  );
}
