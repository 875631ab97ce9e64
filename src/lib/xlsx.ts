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

/**
 * Complete elements named `tag` (`<tag …>…</tag>` or `<tag …/>`), in order, from a stream of XML.
 * Only the text after the last complete element is kept between chunks.
 */
export async function* xmlElements(stream: ReadableStream<Uint8Array>, tag: string): AsyncGenerator<string> {
  const element = new RegExp(`<${tag}(?:\\s[^>]*?)?(?:/>|>[\\s\\S]*?</${tag}>)`, "g");
  const opening = new RegExp(`<${tag}[\\s/>]`);
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = stream.getReader();
  try {
    for (;;) {
      const next = await reader.read();
      buffer += next.done ? decoder.decode() : decoder.decode(next.value, { stream: true });
      element.lastIndex = 0;
      let consumed = 0;
      for (let match = element.exec(buffer); match; match = element.exec(buffer)) {
        yield match[0];
        consumed = element.lastIndex;
      }
      buffer = buffer.slice(consumed);
      // Keep from the next element's start; text before it (other elements) is not needed.
      const start = buffer.search(opening);
      buffer = start >= 0 ? buffer.slice(start) : buffer.slice(-(tag.length + 2));
      if (next.done) return;
    }
  } finally {
    reader.releaseLock();
  }
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

const ROW_NUMBER = /\sr="(\d+)"/;
const CELL_COLUMN = /\sr="([A-Za-z]+)/;
const CELL_TYPE = /\st="([^"]*)"/;
const VALUE = /<v(?:\s[^>]*)?>([\s\S]*?)<\/v>/;

/** Column letters seen so far → index (a sheet has a few dozen). */
const columnsByLetters = new Map<string, number>();

function cellColumn(letters: string): number {
  let index = columnsByLetters.get(letters);
  if (index === undefined) {
    index = columnIndex(letters);
    if (columnsByLetters.size < 4096) columnsByLetters.set(letters, index);
  }
  return index;
}

/** Whether the character after `<c` ends the name (so `<c …>`, not `<col …>`). */
const endsName = (code: number) => code === 32 || code === 62 || code === 47 || code === 9 || code === 10 || code === 13;

// Cells are found with indexOf rather than one regular expression: a sheet has over a million.
function parseRow(xml: string, previous: number, shared: readonly string[]): SheetRow {
  const openEnd = xml.indexOf(">");
  const number = Number(ROW_NUMBER.exec(xml.slice(0, openEnd))?.[1] ?? previous + 1);
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
    const attrs = xml.slice(start + 2, empty ? tagEnd - 1 : tagEnd);
    let inner = "";
    if (empty) at = tagEnd + 1;
    else {
      const close = xml.indexOf("</c>", tagEnd);
      if (close === -1) throw new XlsxError(`row ${number} has a cell that is not closed`);
      inner = xml.slice(tagEnd + 1, close);
      at = close + 4;
    }
    const letters = CELL_COLUMN.exec(attrs)?.[1];
    column = letters ? cellColumn(letters.toUpperCase()) : column + 1;
    const type = CELL_TYPE.exec(attrs)?.[1] ?? "n";
    const raw = inner === "" ? undefined : VALUE.exec(inner)?.[1];
    let value: CellValue = null;
    if (type === "inlineStr") value = itemText(inner);
    else if (raw === undefined || type === "e") value = null;
    else if (type === "s") {
      value = shared[Number(raw)] ?? null;
      if (value === null) throw new XlsxError(`row ${number} refers to shared string ${raw}, which the workbook does not have`);
    } else if (type === "n") value = Number(raw);
    else value = unescapeXml(raw); // str (a formula's text), b, d
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

/** The rows of the workbook's first sheet, in order, one at a time. */
export async function* sheetRows(zip: Uint8Array): AsyncGenerator<SheetRow> {
  const entries = zipEntries(zip);
  const sheetPath = await firstSheetPath(zip, entries);
  const sheet = entries.get(sheetPath);
  if (!sheet) throw new XlsxError(`the workbook has no ${sheetPath}`);
  const shared: string[] = [];
  const strings = entries.get("xl/sharedStrings.xml");
  if (strings) for await (const item of xmlElements(entryStream(zip, strings), "si")) shared.push(itemText(item));
  let previous = 0;
  for await (const xml of xmlElements(entryStream(zip, sheet), "row")) {
    const row = parseRow(xml, previous, shared);
    previous = row.number;
    yield row;
  }
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
export function writeXlsx(sheets: readonly WriteSheet[], options: { deflate?: boolean } = {}): Promise<Uint8Array<ArrayBuffer>> {
  const shared = new Map<string, number>();
  const sheetXml = function* (sheet: WriteSheet): Iterable<string> {
    yield `${XML_HEAD}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheetData>`;
    let number = 0;
    for (const row of sheet.rows()) {
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
    options,
  );
}
