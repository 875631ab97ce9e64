// The shared reader of SII tables by header label.
import { describe, expect, it } from "vitest";
import { ApiError } from "../lib/api-error.ts";
import { parsePage } from "./html.ts";
import { findTable, normalizeLabel } from "./table.ts";

const WANTED = { mes: ["mes"], bruto: ["monto bruto", "bruto"], neto: ["liquido", "total liquido"] };

const refusal = (run: () => unknown): { status: number; code: string; service?: unknown; check?: string } => {
  try {
    run();
  } catch (err) {
    if (err instanceof ApiError)
      return { status: err.status, code: err.code, ...(err.init.details as { service?: unknown; check?: string }) };
    throw err;
  }
  throw new Error("expected a refusal");
};

describe("findTable", () => {
  it("compares labels without accents, case, punctuation or extra white space", () => {
    expect(normalizeLabel("  Total\u00a0LÍQUIDO: ")).toBe("total liquido");
  });

  it("finds the columns by label whatever their order, past layout tables, with synonyms", () => {
    const page = parsePage(
      "<table><tr><td>logo</td></tr></table><table><tr><th>Total Líquido<th>MES<th>Otra<th>Bruto<tr><td>9<td>ENERO<td>x<td>10</table>",
    );
    const table = findTable(page, "svc", WANTED);
    expect(table.columns).toEqual({ mes: 1, bruto: 3, neto: 0 });
    expect(table.rows).toEqual([["9", "ENERO", "x", "10"]]);
    expect(table.headers).toEqual(["Total Líquido", "MES", "Otra", "Bruto"]);
  });

  it("merges a header of two rows (rowspan and colspan) per position", () => {
    const page = parsePage("<table><tr><th rowspan=2>Mes<th colspan=2>Montos<tr><th>Bruto<th>Líquido<tr><td>ENERO<td>10<td>9</table>");
    const table = findTable(page, "svc", WANTED);
    expect(table.columns).toEqual({ mes: 0, bruto: 1, neto: 2 });
    expect(table.rows).toHaveLength(1);
  });

  it("merges a header of three rows, reading a column by the one part that names it when the lowest does not", () => {
    const page = parsePage(
      "<table><thead><tr><th colspan=3>Resumen<tr><th>Mes<th>Bruto<th>Líquido<tr><th>(1)<th>$<th>$</thead><tr><td>ENERO<td>10<td>9</table>",
    );
    const table = findTable(page, "svc", WANTED);
    expect(table.columns).toEqual({ mes: 0, bruto: 1, neto: 2 });
    expect(table.rows).toEqual([["ENERO", "10", "9"]]);
  });

  it("takes every <thead> row for the header, <td> cells included", () => {
    const page = parsePage(
      "<table><thead><tr><th>Mes<th>Bruto<th>Líquido<tr><td>(1)<td>(2)<td>(3)</thead><tr><td>ENERO<td>10<td>9</table>",
    );
    expect(findTable(page, "svc", WANTED).rows).toEqual([["ENERO", "10", "9"]]);
  });

  it("refuses a label that only a part spanning several columns carries", () => {
    const page = parsePage("<table><tr><th>Mes<th colspan=2>Bruto<th>Liquido<tr><th><th>(1)<th>(2)<th></table>");
    expect(refusal(() => findTable(page, "svc", WANTED)).check).toContain("bruto found twice");
  });

  it("refuses two columns read from one cell", () => {
    const page = parsePage("<table><tr><th>Mes<th>Bruto<tr><th><th>Liquido<tr><td>ENERO<td>10</table>");
    expect(refusal(() => findTable(page, "svc", WANTED)).check).toContain("bruto, neto read from one column");
  });

  it("takes the first row naming a label as the header when the table has no <th> row", () => {
    const table = findTable(
      parsePage("<table><tr><td>Informe<tr><td>Mes<td>Bruto<td>Liquido<tr><td>ENERO<td>1<td>1</table>"),
      "svc",
      WANTED,
    );
    expect(table.rows).toEqual([["ENERO", "1", "1"]]);
  });

  it("refuses a missing column, naming it and the headers seen", () => {
    const error = refusal(() => findTable(parsePage("<table><tr><th>Mes<th>Bruto<th>Neto final</table>"), "bte_report", WANTED));
    expect(error).toMatchObject({ status: 502, code: "SII_FORMAT_CHANGED", service: "bte_report" });
    expect(error.check).toContain("neto not found");
    expect(error.check).toContain('"Neto final"');
  });

  it("refuses a column found twice unless it repeats by design", () => {
    const page = parsePage("<table><tr><th>Mes<th>Bruto<th>Monto bruto<th>Liquido</table>");
    expect(refusal(() => findTable(page, "svc", WANTED)).check).toContain("bruto found twice");
    const days = findTable(
      parsePage("<table><tr><th>Día<th>Valor<th>Día<th>Valor</table>"),
      "svc",
      { dia: ["dia"], valor: ["valor"] },
      { repeated: ["dia", "valor"] },
    );
    expect(days.all).toEqual({ dia: [0, 2], valor: [1, 3] });
  });
});
