// Every Markdown table of the documents renders as a table on GitHub: a delimiter row whose cell
// count differs from the header's makes the whole block plain text, and a body row's cells past the
// header's are silently dropped. Only `\|` keeps a pipe inside a cell (GitHub splits on a pipe in a
// code span too); fenced code blocks hold no tables.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

function documents(): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  const clients = readdirSync(join(root, "clients"))
    .map((name) => `clients/${name}/README.md`)
    .filter((path) => existsSync(join(root, path)));
  return ["README.md", "CHANGELOG.md", "ARCHITECTURE.md", ...docs, ...clients];
}

/** The cells of a table row: split on pipes no backslash escapes, one leading and one trailing pipe dropped. */
function cellsOf(line: string): string[] {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

const DELIMITER = /^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$/;

/** A delimiter row: hyphen cells with optional colons, and at least one pipe (else it is a rule or a setext heading). */
function isDelimiter(line: string): boolean {
  const row = line.trim();
  return row.includes("|") && DELIMITER.test(row);
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { text: string; number: number }[] {
  const lines: { text: string; number: number }[] = [];
  let fence: string | null = null;
  markdown.split("\n").forEach((text, index) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence === null && marker) fence = marker;
    else if (fence !== null && marker && marker[0] === fence[0] && marker.length >= fence.length && text.trim() === marker) fence = null;
    else if (fence === null) lines.push({ text, number: index + 1 });
  });
  return lines;
}

/** What is wrong with the tables of one Markdown text, each problem with its line number. */
function tableProblems(markdown: string): string[] {
  const lines = proseLines(markdown);
  const problems: string[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const header = lines[i];
    const delimiter = lines[i + 1];
    if (!header || !delimiter || !header.text.includes("|") || !isDelimiter(delimiter.text)) continue;
    // Two lines apart in the file means a fenced block came between them: no table.
    if (delimiter.number !== header.number + 1) continue;
    const columns = cellsOf(header.text).length;
    const delimiters = cellsOf(delimiter.text).length;
    if (delimiters !== columns) problems.push(`line ${delimiter.number}: ${delimiters} delimiter cells under ${columns} header cells`);
    let j = i + 2;
    for (; j < lines.length; j++) {
      const row = lines[j];
      if (!row || row.text.trim() === "" || row.number !== (lines[j - 1]?.number ?? 0) + 1) break;
      const cells = cellsOf(row.text).length;
      if (cells > columns) problems.push(`line ${row.number}: ${cells} cells in a row under ${columns} header cells`);
    }
    i = j - 1;
  }
  return problems;
}

describe("Markdown tables of the documents", () => {
  it("are checked as GitHub reads them", () => {
    expect(cellsOf("| a | `x \\| y` | c |")).toEqual(["a", "`x \\| y`", "c"]);
    expect(cellsOf("a | b")).toEqual(["a", "b"]);
    expect(tableProblems("| a | b |\n|---|---|\n| 1 | 2 |\n")).toEqual([]);
    expect(tableProblems("| a | b |\n|---|---|---|\n| 1 | 2 |\n")).toEqual(["line 2: 3 delimiter cells under 2 header cells"]);
    expect(tableProblems("| a | b |\n|---|---|\n| 1 | 2 | 3 |\n\n| 4 | 5 | 6 |\n")).toEqual([
      "line 3: 3 cells in a row under 2 header cells",
    ]);
    // A pipe in a code span splits unless escaped.
    expect(tableProblems("| a | b |\n|---|---|\n| `x | y` | z |\n")).toEqual(["line 3: 3 cells in a row under 2 header cells"]);
    expect(tableProblems("```\n| a | b |\n|---|---|---|\n```\n")).toEqual([]);
    expect(tableProblems("Title\n---\n")).toEqual([]);
  });

  it("have as many delimiter cells as header cells, and no row with more", () => {
    const files = documents();
    expect(files).toEqual(expect.arrayContaining(["README.md", "docs/sandbox.md", "clients/python/README.md"]));
    const problems = files.flatMap((file) => tableProblems(readFileSync(join(root, file), "utf8")).map((problem) => `${file} ${problem}`));
    expect(problems).toEqual([]);
  });
});
