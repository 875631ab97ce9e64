// The ZIP and XLSX readers against workbooks the writer produced: shared and inline strings,
// numbers, gaps between columns, rows skipped, several sheets, stored and deflated entries.
import { describe, expect, it } from "vitest";
import { columnIndex, columnLetters, MAX_ELEMENT_CHARS, openSheet, sheetRows, type WriteCell, writeXlsx, xmlElements } from "./xlsx.ts";
import { crc32, entryStream, looksLikeZip, zipArchive, zipEntries } from "./zip.ts";

const text = (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

async function rowsOf(bytes: Uint8Array) {
  const rows = [];
  for await (const row of sheetRows(bytes)) rows.push(row);
  return rows;
}

describe("zip", () => {
  it("computes the standard CRC-32", () => {
    expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
    const whole = new TextEncoder().encode("hello, world");
    expect(crc32(whole.subarray(5), crc32(whole.subarray(0, 5)))).toBe(crc32(whole));
  });

  it("reads back stored and deflated entries with their declared sizes", async () => {
    for (const deflate of [true, false]) {
      const long = "Tasación fiscal ".repeat(20_000);
      const zip = await zipArchive(
        [
          { name: "a.txt", text: () => ["uno ", "dos"] },
          { name: "ñandú/b.txt", text: () => [long] },
        ],
        { deflate },
      );
      expect(looksLikeZip(zip)).toBe(true);
      const entries = zipEntries(zip);
      expect([...entries.keys()]).toEqual(["a.txt", "ñandú/b.txt"]);
      const b = entries.get("ñandú/b.txt");
      expect(b?.method).toBe(deflate ? 8 : 0);
      expect(b?.size).toBe(new TextEncoder().encode(long).length);
      if (deflate) expect(b?.compressedSize).toBeLessThan(2_000);
      expect(await text(entryStream(zip, entries.get("a.txt")!))).toBe("uno dos");
      expect(await text(entryStream(zip, b!))).toBe(long);
    }
  });

  it("refuses an archive cut short and an entry whose data does not match its size", async () => {
    const zip = await zipArchive([{ name: "a.txt", text: () => ["x".repeat(10_000)] }]);
    expect(() => zipEntries(zip.slice(0, zip.length - 10))).toThrow(/end of central directory/);
    const lying = zip.slice();
    const entry = zipEntries(lying).get("a.txt")!;
    // The directory says one byte more than the data unpacks to.
    new DataView(lying.buffer).setUint32(lying.length - 22 - 46 - 5 + 24, entry.size + 1, true);
    await expect(text(entryStream(lying, zipEntries(lying).get("a.txt")!))).rejects.toThrow(/unpacked to 10000 bytes/);
  });
});

describe("xlsx", () => {
  it("names columns both ways", () => {
    for (const [letters, index] of [
      ["A", 0],
      ["Z", 25],
      ["AA", 26],
      ["AZ", 51],
      ["BA", 52],
      ["ZZ", 701],
      ["AAA", 702],
    ] as const) {
      expect(columnIndex(letters)).toBe(index);
      expect(columnLetters(index)).toBe(letters);
    }
  });

  it("reads the first sheet: shared and inline strings, numbers, gaps and escapes", async () => {
    const rows: WriteCell[][] = [
      ["TASACIÓN FISCAL DE VEHÍCULOS"],
      [],
      ["Código SII", "Año", null, "Marca", { inline: "Observación" }],
      ["SU2290241", 2017, null, "SUZUKI", { inline: "A & B <nuevo>" }],
      ["TO1000001", 2024.5, "CAMIONETA", "TOYOTA", null],
      [
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        -3,
      ],
    ];
    const bytes = await writeXlsx([
      { name: "Tasación", rows: () => rows },
      { name: "Siglas", rows: () => [["AC", "Aire acondicionado"]] },
    ]);
    const read = await rowsOf(bytes);
    expect(read.map((r) => r.number)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(read[0]?.cells).toEqual(["TASACIÓN FISCAL DE VEHÍCULOS"]);
    expect(read[1]?.cells).toEqual([]);
    expect(read[2]?.cells).toEqual(["Código SII", "Año", null, "Marca", "Observación"]);
    expect(read[3]?.cells).toEqual(["SU2290241", 2017, null, "SUZUKI", "A & B <nuevo>"]);
    expect(read[4]?.cells).toEqual(["TO1000001", 2024.5, "CAMIONETA", "TOYOTA"]);
    expect(read[5]?.cells[27]).toBe(-3);
    expect(read[5]?.cells.slice(0, 27).every((c) => c === null)).toBe(true);
  });

  it("follows row numbers the sheet skips, and reads rich-text runs without phonetic hints", async () => {
    const sheet =
      '<worksheet><sheetData><row r="3"><c r="B3" t="s"><v>0</v></c></row><row r="7"><c r="A7"><v>1.5</v></c><c t="str"><v>x&amp;y</v></c></row></sheetData></worksheet>';
    const strings = '<sst><si><r><t>Hyun</t></r><r><t xml:space="preserve">dai </t></r><rPh><t>ヒュンダイ</t></rPh></si></sst>';
    const zip = await zipArchive([
      { name: "xl/worksheets/sheet1.xml", text: () => [sheet] },
      { name: "xl/sharedStrings.xml", text: () => [strings] },
    ]);
    const read = await rowsOf(zip);
    expect(read).toEqual([
      { number: 3, cells: [null, "Hyundai "] },
      { number: 7, cells: [1.5, "x&y"] },
    ]);
  });

  it("reads cells whatever the order and spacing of their attributes, and skips other elements in a row", async () => {
    const sheet = [
      "<worksheet><sheetData>",
      '<row r="1" spans="1:4"><c t="s" s="3" r="A1"><v>0</v></c><c\n r="C1"\tt="n"><f>A1*2</f><v>4</v></c><c r="D1" s="1"/>',
      '<c r="E1" t="e"><v>#N/A</v></c><c r="F1" t="inlineStr"><is><t>x</t></is></c><extLst/></row>',
      "</sheetData></worksheet>",
    ].join("");
    const zip = await zipArchive([
      { name: "xl/worksheets/sheet1.xml", text: () => [sheet] },
      { name: "xl/sharedStrings.xml", text: () => ["<sst><si><t>uno</t></si></sst>"] },
    ]);
    expect(await rowsOf(zip)).toEqual([{ number: 1, cells: ["uno", null, 4, null, null, "x"] }]);
  });

  it("scans elements split across chunks of any size", async () => {
    const xml = `<sheetData>${Array.from({ length: 50 }, (_, i) => `<row r="${i + 1}"><c><v>${i}</v></c></row>`).join("")}<row r="51"/></sheetData>`;
    const bytes = new TextEncoder().encode(xml);
    for (const size of [1, 7, 64, bytes.length]) {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += size) controller.enqueue(bytes.slice(at, at + size));
          controller.close();
        },
      });
      const found = [];
      for await (const element of xmlElements(stream, "row")) found.push(element);
      expect(found, `chunks of ${size}`).toHaveLength(51);
      expect(found[50]).toBe('<row r="51"/>');
    }
  });

  it("says how many rows the sheet declares before reading any, or counts them when it declares none", async () => {
    const rows = () => [["a", 1], [], ["b", null, 3]];
    const declared = await openSheet(await writeXlsx([{ name: "S", rows }]));
    expect(declared.declaredRows).toBe(3);
    const sheet = '<worksheet><dimension ref="B2:AC20012"/><sheetData><row r="2"><c r="B2"><v>1</v></c></row></sheetData></worksheet>';
    expect((await openSheet(await zipArchive([{ name: "xl/worksheets/sheet1.xml", text: () => [sheet] }]))).declaredRows).toBe(20012);
    const whole = sheet.replace("B2:AC20012", "A1:XFD1048576");
    const spanning = await openSheet(await zipArchive([{ name: "xl/worksheets/sheet1.xml", text: () => [whole] }]));
    expect([spanning.declaredRows, await spanning.countRows()]).toEqual([null, 1]);
    const bare = await openSheet(await writeXlsx([{ name: "S", rows }], { dimension: false }));
    expect([bare.declaredRows, await bare.countRows()]).toEqual([null, 3]);
    const read = [];
    for await (const batch of bare.batches()) read.push(...batch.map((row) => row.cells));
    expect(read).toEqual([["a", 1], [], ["b", null, 3]]);
  });

  it("refuses a row or string longer than the most it buffers, instead of buffering without end", async () => {
    const long = "x".repeat(MAX_ELEMENT_CHARS + 1);
    const sheet = `<worksheet><sheetData><row r="1"><c t="inlineStr"><is><t>${long}</t></is></c></row></sheetData></worksheet>`;
    const zip = await zipArchive([{ name: "xl/worksheets/sheet1.xml", text: () => [sheet] }]);
    await expect(rowsOf(zip)).rejects.toThrow(/longer than 262144 characters/);
    const unclosed = `<worksheet><sheetData><row r="1"><c><v>1</v></c>${"<c/>".repeat(MAX_ELEMENT_CHARS / 4)}`;
    await expect(rowsOf(await zipArchive([{ name: "xl/worksheets/sheet1.xml", text: () => [unclosed] }]))).rejects.toThrow(/<row> element/);
  });

  it("reads a large generated sheet row by row", async () => {
    const count = 20_000;
    const bytes = await writeXlsx([{ name: "S", rows: () => Array.from({ length: count }, (_, i) => [`M${i % 40}`, i, null, `V${i}`]) }]);
    let n = 0;
    for await (const row of sheetRows(bytes)) {
      expect(row.cells).toEqual([`M${n % 40}`, n, null, `V${n}`]);
      n++;
    }
    expect(n).toBe(count);
  });
});
