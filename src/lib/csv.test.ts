import { describe, expect, it } from "vitest";
import { csvText, neutralizeCsvCell, neutralizeCsvLine, neutralizeCsvValue } from "./csv.ts";

describe("CSV formula guard (OWASP CSV Injection)", () => {
  it("puts a quote before what a spreadsheet reads as a formula", () => {
    for (const value of ["=1+1", '=HYPERLINK("http://x","y")', "+A1", "-A1", "@SUM(A1)", "\tx", "\rx", "-1500 CLP", "+56 9 1234"]) {
      expect(neutralizeCsvValue(value), value).toBe(`'${value}`);
    }
  });

  it("keeps plain numbers, the SII's lone `-`, and other text as they are", () => {
    for (const value of ["-1500", "+5", "-12.5", "-12,5", "1500", "0", "-", "", "EMPRESA A LIMITADA", "1.500.000", " =x"]) {
      expect(neutralizeCsvValue(value), value).toBe(value);
    }
    // Not a plain number: two separators, or one with nothing after it.
    expect(neutralizeCsvValue("-1.500.000")).toBe("'-1.500.000");
    expect(neutralizeCsvValue("-12.")).toBe("'-12.");
  });

  it("guards a quoted cell inside its quotes", () => {
    expect(neutralizeCsvCell('"=1+1"')).toBe(`"'=1+1"`);
    expect(neutralizeCsvCell('"-12,5"')).toBe('"-12,5"');
    expect(neutralizeCsvCell('"ACME"')).toBe('"ACME"');
  });

  it("guards each cell of a line, leaving delimiters inside quotes alone", () => {
    expect(neutralizeCsvLine('1;33;=cmd|x;-1500;"a;=b";@x;-', ";")).toBe(`1;33;'=cmd|x;-1500;"a;=b";'@x;-`);
    expect(neutralizeCsvLine('"=a;b";+5', ";")).toBe(`"'=a;b";+5`);
    expect(neutralizeCsvLine("", ";")).toBe("");
  });

  it("writes rows with RFC 4180 quoting after the guard", () => {
    expect(
      csvText(
        [
          ["MES", "MONTO"],
          ["=1+1", "-1500"],
          ['a"b', "c;d"],
        ],
        ";",
      ),
    ).toBe(`MES;MONTO\r\n'=1+1;-1500\r\n"a""b";"c;d"\r\n`);
    expect(csvText([], ";")).toBe("");
  });
});
