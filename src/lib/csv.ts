// CSV the gateway answers, guarded against formula injection (OWASP "CSV Injection",
// https://owasp.org/www-community/attacks/CSV_Injection): a cell a spreadsheet would read as a
// formula (first character `=`, `+`, `-`, `@`, tab or carriage return) gets a leading `'`, so a
// supplier named `=HYPERLINK(...)` in the SII's register opens as text. A plain number (`-1500`,
// `+5`, `-12,5`) stays as it is, so amounts stay numbers; so does a lone `-`, the SII's empty cell
// in its exports, which no spreadsheet reads as a formula.

/** What a spreadsheet takes for the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A number and nothing else: a sign, digits, and one decimal point or comma. */
const PLAIN_NUMBER = /^[+-]?\d+(?:[.,]\d+)?$/;

function isFormula(value: string): boolean {
  return FORMULA_START.test(value) && value !== "-" && !PLAIN_NUMBER.test(value);
}

/** A value (not yet written as CSV) with a `'` in front when a spreadsheet would read it as a formula. */
export function neutralizeCsvValue(value: string): string {
  return isFormula(value) ? `'${value}` : value;
}

/** A cell as written in a CSV line, guarded: a quoted cell is read without its quotes, so the `'` goes inside them. */
export function neutralizeCsvCell(cell: string): string {
  if (!cell.startsWith('"')) return neutralizeCsvValue(cell);
  const inner = cell.slice(1);
  return isFormula(inner.endsWith('"') ? inner.slice(0, -1) : inner) ? `"'${inner}` : cell;
}

/**
 * One line of a CSV made elsewhere (the SII's export), each cell guarded. Delimiters inside a
 * double-quoted cell belong to the cell.
 */
export function neutralizeCsvLine(line: string, delimiter: string): string {
  const cells: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && line.startsWith(delimiter, i)) {
      cells.push(line.slice(start, i));
      start = i + delimiter.length;
      i = start - 1;
    }
  }
  cells.push(line.slice(start));
  return cells.map(neutralizeCsvCell).join(delimiter);
}

/** Rows of text as CSV (RFC 4180 quoting, CRLF line ends), each cell guarded. */
export function csvText(rows: readonly (readonly string[])[], delimiter: string): string {
  const field = (text: string) => {
    const value = neutralizeCsvValue(text);
    return /["\r\n]/.test(value) || value.includes(delimiter) ? `"${value.replaceAll('"', '""')}"` : value;
  };
  return rows.map((row) => row.map(field).join(delimiter)).join("\r\n") + (rows.length ? "\r\n" : "");
}
