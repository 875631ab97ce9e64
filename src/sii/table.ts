// Reading an SII table by its header labels, never by position alone: an SII page whose columns move,
// are renamed to a known synonym, or gain a column still reads the same numbers; one whose wanted
// column is missing (or named twice, or falls where another does) is refused with SII_FORMAT_CHANGED,
// never read as other numbers.
//
// Use: `findTable(page, "service", { mes: ["mes"], bruto: ["monto bruto", "bruto"] })` → the first table
// whose header names every wanted column, with `columns.bruto` the index of that cell in each row and
// `rows` the data rows (the cells' text) below the header. `cell(row, index)` reads one safely.
import { formatChanged } from "./format-changed.ts";
import { cellsOf, type HtmlElement, type HtmlScope, textOf } from "./html.ts";

/** How a label is compared: no accents, lower case, punctuation as spaces, runs of white space as one. */
export function normalizeLabel(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/** Wanted columns: key → its known labels (synonyms). A column repeated by design (`Día Valor Día Valor`) is listed in `repeated`. */
export type WantedColumns<K extends string> = Record<K, readonly string[]>;

export interface LabelledTable<K extends string> {
  /** key → the cell index of its column (the first, for a repeated one). */
  columns: Record<K, number>;
  /** key → every cell index of a repeated column, in order (a single index for the others). */
  all: Record<K, number[]>;
  /** The header's labels as the page shows them, one per cell position. */
  headers: string[];
  /** The rows below the header, each as its cells' text (the cells of a nested table excluded). */
  rows: string[][];
  /** The header rows and then the data rows, as the page shows them (for a CSV of the table). */
  cells: string[][];
}

export interface FindOptions<K extends string> {
  /** Columns the page repeats on purpose (found once or more, never refused for it). */
  repeated?: readonly K[];
}

/** A table's own rows (not those of a table nested in one of its cells). */
function ownRows(table: HtmlElement): HtmlElement[] {
  return Array.from(table.querySelectorAll("tr")).filter((row) => tableOf(row) === table);
}

/** The table a row belongs to: its nearest table ancestor (a walk up, cheaper than `closest`'s selector). */
function tableOf(row: HtmlElement): HtmlElement | null {
  let parent = row.parentElement;
  while (parent && parent.tagName.toUpperCase() !== "TABLE") parent = parent.parentElement;
  return parent;
}

const span = (cell: HtmlElement) => Math.max(1, Math.min(50, Number(cell.getAttribute("colspan")) || 1));

/** A row of the header: inside `<thead>`, or made only of `<th>` cells. */
function isHeaderRow(row: HtmlElement): boolean {
  const cells = cellsOf(row);
  if (!cells.length) return false;
  return row.parentElement?.tagName.toUpperCase() === "THEAD" || cells.every((cell) => cell.tagName.toUpperCase() === "TH");
}

/**
 * The header of a table: its leading header rows (several rows are merged per position, `colspan`
 * spread over the positions it covers); without such rows, the first row that names one of the wanted
 * labels. Returns the label parts per position and how many rows it took.
 */
function headerOf(rows: HtmlElement[], known: Set<string>): { parts: string[][]; size: number } | null {
  let size = 0;
  while (size < rows.length && isHeaderRow(rows[size] as HtmlElement)) size++;
  let headerRows = rows.slice(0, size);
  if (!size) {
    const index = rows.findIndex((row) => cellsOf(row).some((cell) => known.has(normalizeLabel(textOf(cell)))));
    if (index < 0) return null;
    headerRows = rows.slice(index, index + 1);
    size = index + 1;
  }
  // Positions already taken by a cell spanning rows above (rowspan), so that the cells of a lower row
  // fall under the right position.
  const parts: string[][] = [];
  const taken = new Map<number, number>();
  headerRows.forEach((row, r) => {
    let position = 0;
    for (const cell of cellsOf(row)) {
      while ((taken.get(position) ?? -1) >= r) position++;
      const rowspan = Math.max(1, Math.min(10, Number(cell.getAttribute("rowspan")) || 1));
      for (let i = 0; i < span(cell); i++) {
        const text = textOf(cell);
        const at = parts[position + i] ?? [];
        if (text && at.at(-1) !== text) at.push(text);
        parts[position + i] = at;
        if (rowspan > 1) taken.set(position + i, r + rowspan - 1);
      }
      position += span(cell);
    }
  });
  return { parts: Array.from(parts, (p) => p ?? []), size };
}

/** Whether a header position carries a label: the whole of its parts, or its lowest part, is one of them. */
function matches(parts: string[], labels: Set<string>): boolean {
  if (!parts.length) return false;
  return labels.has(normalizeLabel(parts.join(" "))) || labels.has(normalizeLabel(parts.at(-1) ?? ""));
}

/**
 * Whether one part of a header position, whichever row it is in, is one of the labels: for a column
 * that no position names by `matches` (a header of three rows whose lowest gives units or numbers). A
 * part spanning several columns then names them all, and the column is refused as found twice.
 */
const partMatches = (parts: string[], labels: Set<string>) => parts.some((part) => labels.has(normalizeLabel(part)));

interface Attempt<K extends string> {
  table?: LabelledTable<K>;
  missing: string[];
  twice: string[];
  /** Columns found at the same position as another. */
  shared?: string[];
  headers: string[];
}

interface Labels<K extends string> {
  /** Every wanted label, normalized. */
  known: Set<string>;
  /** Per key, its labels normalized. */
  byKey: Map<K, Set<string>>;
}

// The wanted columns are the readers' constants: their labels are normalized once, not on every
// page read (a page read normalized each synonym twice, some 80 Unicode normalizations for the BTE).
const normalized = new WeakMap<object, Labels<string>>();

function labelsOf<K extends string>(wanted: WantedColumns<K>): Labels<K> {
  let labels = normalized.get(wanted) as Labels<K> | undefined;
  if (!labels) {
    const keys = Object.keys(wanted) as K[];
    const byKey = new Map(keys.map((key) => [key, new Set(wanted[key].map(normalizeLabel))]));
    labels = { known: new Set([...byKey.values()].flatMap((set) => [...set])), byKey };
    normalized.set(wanted, labels);
  }
  return labels;
}

function tryTable<K extends string>(table: HtmlElement, wanted: WantedColumns<K>, repeated: readonly K[]): Attempt<K> {
  const keys = Object.keys(wanted) as K[];
  const { known, byKey } = labelsOf(wanted);
  const rows = ownRows(table);
  const header = headerOf(rows, known);
  if (!header) return { missing: keys, twice: [], headers: [] };
  const headers = header.parts.map((p) => p.join(" "));
  const all = {} as Record<K, number[]>;
  const columns = {} as Record<K, number>;
  const missing: string[] = [];
  const twice: string[] = [];
  for (const key of keys) {
    const labels = byKey.get(key) ?? new Set<string>();
    const by = (test: typeof matches) => header.parts.flatMap((parts, i) => (test(parts, labels) ? [i] : []));
    const whole = by(matches);
    const found = whole.length ? whole : by(partMatches);
    if (!found.length) missing.push(key);
    else if (found.length > 1 && !repeated.includes(key)) twice.push(key);
    all[key] = found;
    columns[key] = found[0] ?? -1;
  }
  // One position read as two columns (a label in a lower row under another's) is no reading at all.
  const shared = keys.filter((key) => keys.some((other) => other !== key && all[other].some((i) => all[key].includes(i))));
  const text = (row: HtmlElement) => cellsOf(row).map(textOf);
  const cells = rows.map(text);
  if (missing.length || twice.length || shared.length) return { missing, twice, shared, headers };
  return { table: { columns, all, headers, rows: cells.slice(header.size), cells }, missing, twice, headers };
}

/**
 * The first table in `scope` whose header names every wanted column (tables nested in another's cells
 * are tried on their own). None → `formatChanged(service, …)` naming the missing (or doubled) columns
 * and the headers of the table that came closest.
 */
export function findTable<K extends string>(
  scope: HtmlScope,
  service: string,
  wanted: WantedColumns<K>,
  options: FindOptions<K> = {},
): LabelledTable<K> {
  let best: Attempt<K> | undefined;
  for (const table of Array.from(scope.querySelectorAll("table"))) {
    const attempt = tryTable(table, wanted, options.repeated ?? []);
    if (attempt.table) return attempt.table;
    const score = (a: Attempt<K>) => a.missing.length + a.twice.length + (a.shared?.length ?? 0);
    if (!best || score(attempt) < score(best)) best = attempt;
  }
  throw refusal(service, best ?? { missing: Object.keys(wanted), twice: [], headers: [] });
}

/** One table read by its header labels; a wanted column missing or doubled → `formatChanged`. */
export function readTable<K extends string>(
  table: HtmlElement,
  service: string,
  wanted: WantedColumns<K>,
  options: FindOptions<K> = {},
): LabelledTable<K> {
  const attempt = tryTable(table, wanted, options.repeated ?? []);
  if (attempt.table) return attempt.table;
  throw refusal(service, attempt);
}

function refusal(service: string, attempt: { missing: string[]; twice: string[]; shared?: string[]; headers: string[] }) {
  const seen = attempt.headers.length ? attempt.headers.map((h) => `"${h}"`).join(", ") : "none";
  const what = [
    attempt.missing.length ? `column ${attempt.missing.join(", ")} not found` : "",
    attempt.twice.length ? `column ${attempt.twice.join(", ")} found twice` : "",
    attempt.shared?.length ? `column ${attempt.shared.join(", ")} read from one column` : "",
  ]
    .filter(Boolean)
    .join("; ");
  return formatChanged(service, `${what} (headers seen: ${seen})`.slice(0, 400));
}

/** A table's own rows, each cell as its text and whether it is a header cell (`<th>`): for a table read by cell kind. */
export function rowCells(table: HtmlElement): { th: boolean; text: string }[][] {
  return ownRows(table).map((row) => cellsOf(row).map((c) => ({ th: c.tagName.toUpperCase() === "TH", text: textOf(c) })));
}

/** Whether some cell of a table's rows (`rowCells`) names one of the wanted labels: it has a header to be read by. */
export function namesAny<K extends string>(rows: { text: string }[][], wanted: WantedColumns<K>): boolean {
  const { known } = labelsOf(wanted);
  return rows.some((row) => row.some((c) => known.has(normalizeLabel(c.text))));
}

/** A row's cell at `index` ("" when the row is shorter). */
export const cell = (row: readonly string[], index: number): string => row[index] ?? "";
