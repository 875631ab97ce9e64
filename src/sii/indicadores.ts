// The SII's public indicator pages (docs/sii-services.md §10), read into numbers through a DOM. No credentials.
// Page shapes, from public scrapers of www.sii.cl/valores_y_fechas (facts only, no code taken):
// - UF (uf/ufYYYY.htm): one section per month, `<div … id='mes_enero'>` with an `<h2>Enero</h2>` heading
//   (victorsilvaTR/LpFacturacion Facturacion/VB50/ModSII.bas: "el SII cambió de <h3> a <h2>"; felipemehr/quebot
//   api/search.php: `id='mes_{month}'`), each day a header cell `<th><strong>1</strong></th>` followed by its
//   `<td>39.703,50</td>`, three (day, value) pairs a row (ModSII.bas reads days d, d+10, d+20 of row d).
// - Second-category tax (impuesto_2da_categoria/impuestoYYYY.htm): one `mes_{month}` section per month
//   (dimabe-odoo/sociedadJP dimabe_rrhh/utils/tax_unique.py); rows of six cells, the pay period named in the
//   first cell of its first row (`MENSUAL`, then `QUINCENAL`…), whose amounts are `-.-`; amounts `$ 941.638,50`;
//   the last upper bound `Y MÁS` (the same file, and a public Django payroll command that reads
//   impuesto2026.htm: `texts[0] == "MENSUAL" and "-.-" in texts[1]`, `"Y MÁS" not in hasta_raw`, strips `$`).
// - Monetary correction (correccion_monetaria/correccionYYYY.htm): a matrix, one row per origin ("Capital
//   Inicial", then Enero…Diciembre) and one column per month the amount is corrected to; the December column
//   is the correction to the year's end (ModSII.bas reads column 12 of each month's row as 1 + %/100; a public
//   TypeScript copy of the 2024-2026 tables keeps `capital_inicial` and each month's row as month → %).

import { ApiError } from "../lib/api-error.ts";
import { MONTHS_ES } from "../lib/dates.ts";
import { cellsOf, type HtmlDocument, type HtmlElement, parsePage, textOf } from "./html.ts";
import { pageText, type SiiContext, siiFetch } from "./http.ts";

const BASE = "https://www.sii.cl/valores_y_fechas";

/** month (1-12) → day (1-31) → value */
export type DailyYear = Record<number, Record<number, number>>;

/** `40.875,09`, `$ 941.638,50`, `2,2%`, `-0,2` → a number; blank, `-.-` or words → null. */
export function parseSiiDecimal(text: string): number | null {
  const clean = text.replace(/[\s\u00a0$%]/g, "").replace(/&nbsp;/g, "");
  if (!/^-?[\d.]*\d(,\d+)?$/.test(clean)) return null;
  const value = Number(clean.replace(/\./g, "").replace(",", "."));
  return Number.isFinite(value) ? value : null;
}

/** Upper case without accents: `Y MÁS` and `Y MAS` read alike. */
const plain = (text: string) =>
  text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .trim()
    .toUpperCase();

/** `Enero`, `ENERO 2025`, `mes_enero` → 1; anything else → 0. */
function monthIndex(text: string): number {
  const word = plain(text).replace(/^MES_/, "").split(/[\s_]/)[0] ?? "";
  return (MONTHS_ES as readonly string[]).indexOf(word) + 1;
}

/**
 * The tables of each month of a yearly page: the `mes_{month}` sections when the page has them, else the
 * tables after each month heading (`<h2>`/`<h3>`), whatever the months' order.
 */
function monthTables(doc: HtmlDocument): Map<number, HtmlElement[]> {
  const months = new Map<number, HtmlElement[]>();
  for (const section of Array.from(doc.querySelectorAll("div[id]"))) {
    const id = section.getAttribute("id") ?? "";
    const month = /^mes_/i.test(id) ? monthIndex(id) : 0;
    if (month > 0) months.set(month, Array.from(section.querySelectorAll("table")));
  }
  if (months.size > 0) return months;
  let current = 0;
  for (const element of Array.from(doc.querySelectorAll("h2, h3, table"))) {
    if (element.tagName.toUpperCase() !== "TABLE") {
      current = monthIndex(textOf(element));
      if (current > 0 && !months.has(current)) months.set(current, []);
    } else if (current > 0) months.get(current)?.push(element);
  }
  return months;
}

const rowsOfTables = (tables: HtmlElement[]) => tables.flatMap((table) => Array.from(table.querySelectorAll("tr")));

/** The (day, value) pairs of a month's tables: a `<th>` day number, then its `<td>` value. */
function dailyMonth(tables: HtmlElement[]): Record<number, number> {
  const days: Record<number, number> = {};
  for (const row of rowsOfTables(tables)) {
    const cells = cellsOf(row);
    cells.forEach((cell, i) => {
      const next = cells[i + 1];
      const day = textOf(cell);
      if (cell.tagName.toUpperCase() !== "TH" || !next || next.tagName.toUpperCase() !== "TD" || !/^\d{1,2}$/.test(day)) return;
      const value = parseSiiDecimal(textOf(next));
      if (value !== null) days[Number(day)] = value;
    });
  }
  return days;
}

function dailyYear(doc: HtmlDocument): DailyYear {
  const year: DailyYear = {};
  for (const [month, tables] of monthTables(doc)) year[month] = dailyMonth(tables);
  return year;
}

/** A yearly page of daily values (the UF page): each month's days and values. */
export function parseDailyYear(html: string): DailyYear {
  return dailyYear(parsePage(html));
}

/** The UF of every published day of a year; null when the SII has no page for that year. */
export async function ufYear(ctx: SiiContext, anio: number): Promise<DailyYear | null> {
  const page = await yearPage(ctx, `uf/uf${anio}.htm`, hasMonthTables);
  return page === null ? null : dailyYear(page);
}

const hasMonthTables = (doc: HtmlDocument) => Array.from(monthTables(doc).values()).some((tables) => tables.length > 0);

/**
 * A yearly page, or null when the SII has none for that year. A page that is cut short or has no
 * month in it is not the SII's yearly page: it is a failure (502), never "not published" (404),
 * which would be cached.
 */
async function yearPage(ctx: SiiContext, path: string, hasContent: (doc: HtmlDocument) => boolean): Promise<HtmlDocument | null> {
  const answer = await siiFetch(ctx, new Request(`${BASE}/${path}`), { service: "indicadores", read: true });
  if (answer.status === 404) return null;
  const complete = /<\/html>\s*$/i.test(answer.text);
  const doc = complete ? parsePage(answer.text) : null;
  if (!doc || !hasContent(doc)) {
    throw new ApiError(
      502,
      "SII_GATEWAY_ERROR",
      `The SII's page ${path} is ${complete ? "not the yearly table it should be" : "cut short"}`,
      {
        details: { service: "indicadores", sii_status: answer.status, sii_message: pageText(answer.text) || answer.text.slice(-200) },
      },
    );
  }
  return doc;
}

export interface CorreccionMonth {
  mes: number;
  nombre_mes: string;
  /** Percentage by which an amount of that month is corrected to the year's end (the December column); null when not published yet. */
  porcentaje: number | null;
  /** 1 + porcentaje/100. */
  factor: number | null;
  /** The row as published: index 0 is January's column … 11 December's; null where the SII leaves the cell blank. */
  porcentajes: (number | null)[];
}

export interface CorreccionCapital {
  /** Correction of the initial own capital to the year's end; null when not published yet. */
  porcentaje: number | null;
  factor: number | null;
  porcentajes: (number | null)[];
}

export interface CorreccionYear {
  capital_inicial: CorreccionCapital;
  meses: CorreccionMonth[];
}

const factorOf = (porcentaje: number | null) => (porcentaje === null ? null : Math.round((1 + porcentaje / 100) * 10_000) / 10_000);

/** The matrix's rows: "Capital Inicial" (month 0) and each month, with the cells under each month column. */
function correccionMatrix(doc: HtmlDocument): Map<number, (number | null)[]> {
  const rows = new Map<number, (number | null)[]>();
  for (const table of Array.from(doc.querySelectorAll("table"))) {
    // Column → month, from the header row that names the months; else the twelve cells after the label.
    let columns: number[] = Array.from({ length: 12 }, (_, i) => i + 1);
    for (const row of Array.from(table.querySelectorAll("tr"))) {
      const texts = cellsOf(row).map(textOf);
      const named = texts.map(monthIndex);
      if (named.filter((m) => m > 0).length >= 6) {
        columns = named.slice(1).map((m, i) => (m > 0 ? m : i + 1));
        // A header row whose first cell is a month is not a data row (the label column is unnamed).
        if (named[0] === 0) continue;
      }
      const label = plain(texts[0] ?? "");
      const origin = label.includes("CAPITAL") ? 0 : monthIndex(label);
      if (origin < 0 || (origin === 0 && !label.includes("CAPITAL"))) continue;
      const values: (number | null)[] = Array.from({ length: 12 }, () => null);
      texts.slice(1).forEach((text, i) => {
        const month = columns[i];
        if (month !== undefined && month >= 1 && month <= 12) values[month - 1] = parseSiiDecimal(text);
      });
      rows.set(origin, values);
    }
    if (rows.size > 0) break;
  }
  return rows;
}

/** Corrección monetaria of a year: the SII's matrix, and per month the correction to the year's end. */
export async function correccionYear(ctx: SiiContext, anio: number): Promise<CorreccionYear | null> {
  const page = await yearPage(ctx, `correccion_monetaria/correccion${anio}.htm`, (doc) =>
    Array.from(correccionMatrix(doc).keys()).some((m) => m > 0),
  );
  if (page === null) return null;
  const matrix = correccionMatrix(page);
  const empty = () => Array.from({ length: 12 }, (): number | null => null);
  const capital = matrix.get(0) ?? empty();
  // December's column is published once the year has ended; December's own row has no cell there: 0 %.
  const yearEnded = capital[11] !== null || Array.from(matrix.values()).some((row) => row[11] !== null);
  const meses = MONTHS_ES.map((nombre, i): CorreccionMonth => {
    const porcentajes = matrix.get(i + 1) ?? empty();
    const porcentaje = i === 11 ? (yearEnded ? (porcentajes[11] ?? 0) : null) : (porcentajes[11] ?? null);
    return { mes: i + 1, nombre_mes: nombre, porcentaje, factor: factorOf(porcentaje), porcentajes };
  });
  return { capital_inicial: { porcentaje: capital[11] ?? null, factor: factorOf(capital[11] ?? null), porcentajes: capital }, meses };
}

export interface Bracket {
  desde: number;
  /** null for the last bracket. */
  hasta: number | null;
  factor: number;
  rebaja: number;
  /** Percent; null for the last bracket (no maximum). */
  tasa_efectiva_maxima: number | null;
}

export interface SegundaCategoriaMonth {
  mensual: Bracket[];
  quincenal: Bracket[];
  semanal: Bracket[];
  diario: Bracket[];
}

const PERIODS = ["mensual", "quincenal", "semanal", "diario"] as const;

/** `-.-` and `Exento` are zero; `Y MÁS` / `MÁS` mean no limit (null); `$ 941.638,50` and `2,2%` are numbers; else undefined. */
function amount(cell: string): number | null | undefined {
  const text = plain(cell);
  if (/^-\.-$|^EXENTO$/.test(text)) return 0;
  if (/\bMAS\b/.test(text)) return null;
  return parseSiiDecimal(text) ?? undefined;
}

/** Impuesto único de segunda categoría: per month (1-12), the brackets of each pay period. */
export async function segundaCategoriaYear(ctx: SiiContext, anio: number): Promise<Record<number, SegundaCategoriaMonth> | null> {
  const page = await yearPage(ctx, `impuesto_2da_categoria/impuesto${anio}.htm`, hasMonthTables);
  if (page === null) return null;
  const months: Record<number, SegundaCategoriaMonth> = {};
  for (const [mes, tables] of monthTables(page)) {
    if (tables.length === 0) continue;
    const month: SegundaCategoriaMonth = { mensual: [], quincenal: [], semanal: [], diario: [] };
    let period: (typeof PERIODS)[number] | undefined;
    for (const row of rowsOfTables(tables)) {
      const texts = cellsOf(row).map(textOf);
      if (texts.length < 6) continue;
      const named = PERIODS.find((p) => p === plain(texts[0] ?? "").toLowerCase());
      if (named) period = named;
      const [desde, hasta, factor, rebaja, maxima] = texts.slice(1, 6).map(amount);
      // A header row or a cell that is not an amount is not a bracket.
      if (!period || desde === null || desde === undefined || factor === null || factor === undefined || hasta === undefined) continue;
      month[period].push({ desde, hasta, factor, rebaja: rebaja ?? 0, tasa_efectiva_maxima: maxima ?? null });
    }
    months[mes] = month;
  }
  return months;
}
