// The SII's public indicator pages (docs/sii-services.md §10), read into numbers through a DOM. No credentials.
// Page shapes, from public scrapers of www.sii.cl/valores_y_fechas (facts only, no code taken):
// - UF (uf/ufYYYY.htm): one section per month, `<div … id='mes_enero'>` with an `<h2>Enero</h2>` heading
//   (victorsilvaTR/LpFacturacion Facturacion/VB50/ModSII.bas: "el SII cambió de <h3> a <h2>"; felipemehr/quebot
//   api/search.php: `id='mes_{month}'`), each day a header cell `<th><strong>1</strong></th>` followed by its
//   `<td>39.703,50</td>`, three (day, value) pairs a row (ModSII.bas reads days d, d+10, d+20 of row d), with no
//   header row above them (ModSII.bas takes the d-th row after the heading as day d's; a public payroll
//   client's parseUf reads the pairs of `mes_{month}` alone).
// - Second-category tax (impuesto_2da_categoria/impuestoYYYY.htm): one `mes_{month}` section per month
//   (dimabe-odoo/sociedadJP dimabe_rrhh/utils/tax_unique.py); rows of six cells, the pay period named in the
//   first cell of its first row (`MENSUAL`, then `QUINCENAL`…), whose amounts are `-.-`; amounts `$ 941.638,50`;
//   the last upper bound `Y MÁS` (the same file, and a public Django payroll command that reads
//   impuesto2026.htm: `texts[0] == "MENSUAL" and "-.-" in texts[1]`, `"Y MÁS" not in hasta_raw`, strips `$`),
//   under a header of three rows (crilam/mcp-sii src/scrapers/indicadores.ts `parsearTramosImpuesto`: "las tres
//   filas del <thead> tienen seis celdas"), the first bracket's factor `Exento`.
// - Monetary correction (correccion_monetaria/correccionYYYY.htm): a matrix, one row per origin ("Capital
//   Inicial", then Enero…Diciembre) and one column per month the amount is corrected to; the December column
//   is the correction to the year's end (ModSII.bas reads column 12 of each month's row as 1 + %/100; a public
//   TypeScript copy of the 2024-2026 tables keeps `capital_inicial` and each month's row as month → %).

//
// Every table is read by its header labels (./table.ts) and checked before anything is answered: days 1-31
// once each and every month before the last published one complete (UF), brackets ascending and contiguous
// with rates in range (tax), a cell only after its own month (correction). A page that fails is
// SII_FORMAT_CHANGED. A page need not end in `</html>`: the checks decide whether it is whole (inferred; no
// public capture shows the SII's pages cut short or with trailing bytes, and the UF's months come in reverse
// order, so a page cut short loses January first, which the completeness check catches).

import { ApiError } from "../lib/api-error.ts";
import { MONTHS_ES } from "../lib/dates.ts";
import { formatChanged } from "./format-changed.ts";
import { divSections, type HtmlDocument, type HtmlElement, parsePage, textOf } from "./html.ts";
import { pageText, type SiiContext, siiFetch } from "./http.ts";
import { cell, findTable, type LabelledTable, namesAny, readTable, rowCells } from "./table.ts";

const SERVICE = "indicadores";

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
 * tables after each month heading (`<h2>`/`<h3>`), whatever the months' order. A table with its month's
 * heading inside (crilam/mcp-sii tests/fixtures/indicadores-uf.html: `<tr><th colspan='6'><h2>Marzo</h2>`)
 * is that month's alone: the tables after it (that fixture's footer) belong to no month.
 */
function monthTables(doc: HtmlDocument): Map<number, HtmlElement[]> {
  const months = new Map<number, HtmlElement[]>();
  for (const section of Array.from(doc.querySelectorAll("div[id]"))) {
    const id = section.getAttribute("id") ?? "";
    const month = /^mes_/i.test(id) ? monthIndex(id) : 0;
    if (month > 0) months.set(month, Array.from(section.querySelectorAll("table")));
  }
  if (months.size > 0) return months;
  const tablesOf = (month: number) => months.get(month) ?? months.set(month, []).get(month) ?? [];
  let current = 0;
  for (const element of Array.from(doc.querySelectorAll("h2, h3, table"))) {
    if (element.tagName.toUpperCase() === "TABLE") {
      const titled = monthIndex(textOf(element.querySelector("h2, h3")));
      if (titled > 0 || current > 0) tablesOf(titled || current).push(element);
      if (titled > 0) current = 0;
    } else if (!element.closest("table")) {
      current = monthIndex(textOf(element));
      if (current > 0) tablesOf(current);
    }
  }
  return months;
}

const DAILY = { dia: ["dia", "dias"], valor: ["valor", "valores", "uf"] } as const;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** A month table's (day, value) cell texts: by its `Día`/`Valor` header when it has one, else by cell kind. */
function dayPairs(table: HtmlElement, name: string): (readonly [string, string])[] {
  const rows = rowCells(table);
  return namesAny(rows, DAILY) ? labelledPairs(table, name) : cellPairs(rows, name);
}

/** Under a `Día | Valor` header (three pairs a row), each day beside its value on whichever side the page puts it. */
function labelledPairs(table: HtmlElement, name: string): (readonly [string, string])[] {
  const read = readTable(table, SERVICE, DAILY, { repeated: ["dia", "valor"] });
  const pairs = read.all.dia.map((dia, i) => [dia, read.all.valor[i] ?? -1] as const);
  const side = (read.all.valor[0] ?? 0) - (read.all.dia[0] ?? 0);
  if (read.all.dia.length !== read.all.valor.length || Math.abs(side) !== 1 || pairs.some(([dia, valor]) => valor !== dia + side)) {
    throw formatChanged(SERVICE, `UF ${name}: the Día and Valor columns are not in pairs (headers seen: ${read.headers.join(", ")})`);
  }
  return read.rows.flatMap((row) => pairs.map(([dia, valor]) => [cell(row, dia), cell(row, valor)] as const));
}

/**
 * Without a header, as the public readers show the page: each day a `<th>` and its value the `<td>` after it
 * (quebot `<strong>(\d+)</strong></th>\s*<td`; ModSII.bas the th and td of row d). A row of `<th>` cells
 * without a number is the month's title (crilam's fixture puts the `<h2>` in the table's first row); any other
 * row that is not (th, td) pairs is a changed layout, never read by position.
 */
function cellPairs(rows: { th: boolean; text: string }[][], name: string): (readonly [string, string])[] {
  return rows.flatMap((row) => {
    if (row.every((c) => c.th && !/\d/.test(c.text))) return [];
    if (row.length % 2 !== 0 || row.some((c, i) => c.th !== (i % 2 === 0)))
      throw formatChanged(
        SERVICE,
        `UF ${name}: a row that is not (day, value) pairs: "${row
          .map((c) => c.text)
          .join(" | ")
          .slice(0, 80)}"`,
      );
    return row.flatMap((c, i) => (i % 2 === 0 ? [[c.text, row[i + 1]?.text ?? ""] as const] : []));
  });
}

/** A month's days and values, each day checked: 1-31 and within the month, once, its value positive. */
function dailyMonth(tables: HtmlElement[], year: number, month: number): Record<number, number> {
  const days: Record<number, number> = {};
  const name = MONTHS_ES[month - 1] ?? String(month);
  for (const [dayText, valueText] of tables.flatMap((table) => dayPairs(table, name))) {
    if (!dayText && !valueText) continue;
    const day = Number(dayText);
    if (!/^\d{1,2}$/.test(dayText) || day < 1 || day > 31)
      throw formatChanged(SERVICE, `UF ${name}: "${dayText.slice(0, 20)}" is not a day`);
    const value = parseSiiDecimal(valueText);
    if (value === null && valueText) throw formatChanged(SERVICE, `UF ${name} ${day}: "${valueText.slice(0, 20)}" is not a value`);
    if (value === null) continue;
    if (day > daysIn(year, month)) throw formatChanged(SERVICE, `UF ${name} has a value for day ${day}`);
    if (days[day] !== undefined) throw formatChanged(SERVICE, `UF ${name} ${day} given twice`);
    if (value <= 0) throw formatChanged(SERVICE, `UF ${name} ${day} is not positive`);
    days[day] = value;
  }
  return days;
}

/**
 * Each month's days and values. Every month before the last one with values must be complete (the
 * SII publishes the UF of every day, weekends included, up to the 9th of the next month) and start
 * from January: a page that lost months or days (cut short) is refused, not answered in part.
 */
function dailyYear(months: Map<number, HtmlElement[]>, year: number): DailyYear {
  const result: DailyYear = {};
  for (const [month, tables] of months) result[month] = dailyMonth(tables, year, month);
  const published = Object.keys(result)
    .map(Number)
    .filter((m) => Object.keys(result[m] ?? {}).length > 0)
    .sort((a, b) => a - b);
  const last = published.at(-1) ?? 0;
  for (let month = 1; month <= last; month++) {
    const days = Object.keys(result[month] ?? {}).map(Number);
    const whole = month < last ? daysIn(year, month) : Math.max(0, ...days);
    if (days.length !== whole)
      throw formatChanged(
        SERVICE,
        `UF ${MONTHS_ES[month - 1]}: ${days.length} days of ${whole}${month < last ? ", before a later month's values" : ""}`,
      );
  }
  return result;
}

/** A yearly page of daily values (the UF page): each month's days and values. */
export function parseDailyYear(html: string, year: number): DailyYear {
  return dailyYear(monthTables(parsePage(html)), year);
}

/**
 * The UF of every published day of a year; null when the SII has no page for that year. `pay` is
 * given the page's length before it is read into a document (what that costs grows with it).
 */
export async function ufYear(ctx: SiiContext, anio: number, pay?: (chars: number) => Promise<void>): Promise<DailyYear | null> {
  return readYearPage(
    ctx,
    `uf/uf${anio}.htm`,
    (html) => {
      // The whole year is read: its months' completeness is checked across them.
      const months = monthTables(parsePage(html));
      return monthsWithTables(months).length ? dailyYear(months, anio) : NOT_THE_PAGE;
    },
    pay,
  );
}

/** Months whose section holds a table: a yearly page has one at least. */
const monthsWithTables = (months: Map<number, HtmlElement[]>) =>
  Array.from(months)
    .filter(([, tables]) => tables.length > 0)
    .map(([month]) => month);

/** What a page's reader answers for a page without any of its tables: not the SII's yearly page. */
const NOT_THE_PAGE = Symbol("not the yearly page");

/**
 * A yearly page read by `read`, or null when the SII has none for that year. A page without any month
 * in it (`read` answers NOT_THE_PAGE) is not the SII's yearly page: a failure (502), never "not
 * published" (404), which would be cached. Whether it ends in `</html>` does not decide anything alone:
 * a page whose tables pass the reader's checks is answered either way; one that fails them is "cut
 * short" (SII_GATEWAY_ERROR, worth a retry) when it is not closed, and SII_FORMAT_CHANGED when it is.
 */
async function readYearPage<T>(
  ctx: SiiContext,
  path: string,
  read: (html: string) => T | typeof NOT_THE_PAGE,
  pay?: (chars: number) => Promise<void>,
): Promise<T | null> {
  const answer = await siiFetch(ctx, new Request(`${BASE}/${path}`), { service: SERVICE, read: true });
  if (answer.status === 404) return null;
  await pay?.(answer.text.length);
  const closed = /<\/html>\s*$/i.test(answer.text);
  const failed = (what: string) =>
    new ApiError(502, "SII_GATEWAY_ERROR", `The SII's page ${path} is ${what}`, {
      details: { service: SERVICE, sii_status: answer.status, sii_message: pageText(answer.text) || answer.text.slice(-200) },
    });
  let value: T | typeof NOT_THE_PAGE;
  try {
    value = read(answer.text);
  } catch (err) {
    if (!closed && err instanceof ApiError && err.code === "SII_FORMAT_CHANGED") throw failed("cut short");
    throw err;
  }
  if (value === NOT_THE_PAGE) throw failed(closed ? "not the yearly table it should be" : "cut short");
  return value;
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

/** The matrix's twelve month columns, by their header (the month's name, or its three-letter short form). */
const MONTH_COLUMNS = Object.fromEntries(MONTHS_ES.map((name) => [name.toLowerCase(), [name, name.slice(0, 3)]])) as Record<
  string,
  readonly string[]
>;

/**
 * The matrix's rows: "Capital Inicial" (month 0) and each month, with the cells under each month's
 * column, found by its header. Decided by the sources above: the rows are those crilam/mcp-sii
 * src/scrapers/indicadores.ts reads (first cell a month name, then the values: one row per month), the
 * columns are months (ModSII.bas reads the 12th as December, the public TypeScript copy keys each row by
 * month). Checks: each origin once, a percentage only after its own month, within ±100 %.
 */
function correccionMatrix(doc: HtmlDocument): Map<number, (number | null)[]> {
  const table = findTable(doc, SERVICE, MONTH_COLUMNS);
  const rows = new Map<number, (number | null)[]>();
  const columnOf = (month: number) => table.columns[MONTHS_ES[month - 1]?.toLowerCase() ?? ""] ?? -1;
  for (const row of table.rows) {
    const label = plain(row[0] ?? "");
    const origin = label.includes("CAPITAL") ? 0 : monthIndex(label);
    const values = Array.from({ length: 12 }, (_, i) => {
      const text = cell(row, columnOf(i + 1));
      const value = parseSiiDecimal(text);
      if (value === null && text && text !== "-")
        throw formatChanged(SERVICE, `correction ${label} / ${MONTHS_ES[i]}: "${text.slice(0, 20)}" is not a percentage`);
      return value;
    });
    if (origin === 0 && !label.includes("CAPITAL")) {
      if (values.every((v) => v === null)) continue; // a note or a heading row, no figures
      throw formatChanged(SERVICE, `correction row "${label.slice(0, 30)}" is neither the initial capital nor a month`);
    }
    if (rows.has(origin)) throw formatChanged(SERVICE, `correction row ${label} given twice`);
    values.forEach((value, i) => {
      if (value === null) return;
      if (i + 1 <= origin)
        throw formatChanged(SERVICE, `correction ${label} has a percentage for ${MONTHS_ES[i]}, not after its own month`);
      if (Math.abs(value) > 100) throw formatChanged(SERVICE, `correction ${label} / ${MONTHS_ES[i]} ${value} % out of range`);
    });
    rows.set(origin, values);
  }
  return rows;
}

/**
 * The matrix with its promise kept: a column published (the initial capital has a figure there) has a
 * figure in every month's row before it, so a page that lost rows is refused rather than read as "not
 * published yet".
 */
function completeMatrix(doc: HtmlDocument): Map<number, (number | null)[]> {
  const matrix = correccionMatrix(doc);
  const capital = matrix.get(0);
  if (!capital) throw formatChanged(SERVICE, "correction without the initial capital's row");
  capital.forEach((value, i) => {
    if (value === null) return;
    for (let origin = 1; origin <= i; origin++) {
      if (matrix.get(origin)?.[i] == null)
        throw formatChanged(SERVICE, `correction ${MONTHS_ES[origin - 1]} has no figure for ${MONTHS_ES[i]}, published for the capital`);
    }
  });
  return matrix;
}

/** Corrección monetaria of a year: the SII's matrix, and per month the correction to the year's end. */
export async function correccionYear(ctx: SiiContext, anio: number): Promise<CorreccionYear | null> {
  const matrix = await readYearPage(ctx, `correccion_monetaria/correccion${anio}.htm`, (html) => {
    const doc = parsePage(html);
    return doc.querySelector("table") !== null ? completeMatrix(doc) : NOT_THE_PAGE;
  });
  if (matrix === null) return null;
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

// The labels crilam/mcp-sii tests/fixtures/indicadores-impuesto2da.html gives its three header rows are
// `Períodos`, `Desde`, `Hasta` (under `Monto de la renta líquida imponible`), `Factor`, `Cantidad a rebajar` and
// `Tasa de Impuesto Efectiva`; the other synonyms are inferred (no public source shows them), kept for a page
// that writes one header row.
const TAX_COLUMNS = {
  periodo: ["periodo", "periodos", "periodo de pago", "periodicidad"],
  desde: ["desde", "renta desde", "monto de la renta liquida imponible desde", "renta liquida imponible desde"],
  hasta: ["hasta", "renta hasta", "monto de la renta liquida imponible hasta", "renta liquida imponible hasta"],
  factor: ["factor", "tasa", "factor tasa"],
  rebaja: ["cantidad a rebajar", "rebaja", "cantidad a rebajar sin credito"],
  maxima: [
    "tasa de impuesto efectiva maxima por cada tramo de renta",
    "tasa de impuesto efectiva maxima",
    "tasa de impuesto efectiva",
    "tasa efectiva maxima",
    "tasa efectiva",
  ],
} as const;

/** A period's brackets as the SII promises them: from 0, each starting where the previous ends (a cent above), ascending rates in range, only the last open. */
function checkBrackets(brackets: Bracket[], where: string): void {
  brackets.forEach((b, i) => {
    const previous = brackets[i - 1];
    const fail = (check: string) => formatChanged(SERVICE, `tax ${where}, bracket ${i + 1}: ${check}`);
    if (i === 0 && b.desde !== 0) throw fail("the first bracket does not start at 0");
    if (previous && (previous.hasta === null || b.desde - previous.hasta < 0 || b.desde - previous.hasta > 1.01))
      throw fail("not contiguous with the previous one");
    if (b.hasta === null ? i !== brackets.length - 1 : b.hasta <= b.desde) throw fail("its upper bound is not above its lower one");
    if (b.factor < 0 || b.factor >= 1 || (previous && b.factor < previous.factor))
      throw fail(`factor ${b.factor} out of range or descending`);
    if (b.tasa_efectiva_maxima !== null && (b.tasa_efectiva_maxima < 0 || b.tasa_efectiva_maxima > 100))
      throw fail("effective rate out of range");
  });
  if (brackets.length && brackets.at(-1)?.hasta !== null)
    throw formatChanged(SERVICE, `tax ${where}: the last bracket is not open ("Y MÁS")`);
}

/** One month's brackets per pay period, from its table read by label. */
function taxMonth(table: LabelledTable<keyof typeof TAX_COLUMNS>, name: string): SegundaCategoriaMonth {
  const month: SegundaCategoriaMonth = { mensual: [], quincenal: [], semanal: [], diario: [] };
  const { columns } = table;
  let period: (typeof PERIODS)[number] | undefined;
  for (const row of table.rows) {
    const label = plain(cell(row, columns.periodo));
    const named = PERIODS.find((p) => p === label.toLowerCase());
    if (named) period = named;
    else if (label) throw formatChanged(SERVICE, `tax ${name}: "${label.slice(0, 20)}" is not a pay period`);
    if (row.every((text) => !text)) continue;
    const [desde, hasta, factor, rebaja, maxima] = (["desde", "hasta", "factor", "rebaja", "maxima"] as const).map((key) =>
      amount(cell(row, columns[key])),
    );
    if (!period) throw formatChanged(SERVICE, `tax ${name}: a bracket before any pay period`);
    if (desde === null || desde === undefined || factor === null || factor === undefined || hasta === undefined || rebaja === undefined) {
      throw formatChanged(SERVICE, `tax ${name} ${period}: a bracket whose amounts are not numbers`);
    }
    month[period].push({ desde, hasta, factor, rebaja: rebaja ?? 0, tasa_efectiva_maxima: maxima ?? null });
  }
  for (const p of PERIODS) checkBrackets(month[p], `${name} ${p}`);
  if (!month.mensual.length) throw formatChanged(SERVICE, `tax ${name}: no monthly brackets`);
  return month;
}

/** One month of the second-category table, and the months its page publishes (a year is whole once December is there). */
export interface SegundaCategoriaRead {
  /** null: the page does not publish that month yet. */
  month: SegundaCategoriaMonth | null;
  published: number[];
}

const isMonthSection = (id: string) => /^mes_/i.test(id) && monthIndex(id) > 0;

/**
 * One month's tables of a yearly page, and the months the page publishes (whose section holds a
 * table). A page of `mes_{month}` sections has that month's section alone parsed into a DOM: the
 * DOM of a year's twelve tax tables (~50 KB) was most of a call's cost, and a month is read and
 * checked when it is asked for. A page without them is parsed whole, its months found by their headings.
 */
function monthOf(html: string, mes: number): { tables: HtmlElement[]; published: number[] } {
  const sections = divSections(html, isMonthSection);
  if (!sections.length) {
    const months = monthTables(parsePage(html));
    return { tables: months.get(mes) ?? [], published: monthsWithTables(months).sort((a, b) => a - b) };
  }
  // As monthTables: a month given twice is read from its last section.
  const byMonth = new Map(sections.map((section) => [monthIndex(section.id), section] as const));
  const section = byMonth.get(mes);
  const tables = section?.tables ? (monthTables(parsePage(section.html)).get(mes) ?? []) : [];
  const published = Array.from(byMonth).flatMap(([month, { tables: count }]) => (count ? [month] : []));
  return { tables, published: published.sort((a, b) => a - b) };
}

/** Impuesto único de segunda categoría: one month's brackets of each pay period; null when the SII has no page for that year. */
export async function segundaCategoriaMonth(ctx: SiiContext, anio: number, mes: number): Promise<SegundaCategoriaRead | null> {
  return readYearPage(ctx, `impuesto_2da_categoria/impuesto${anio}.htm`, (html) => {
    const { tables, published } = monthOf(html, mes);
    if (!published.length) return NOT_THE_PAGE;
    // One table a month (dimabe-odoo/sociedadJP reads the section's tbody rows); inferred that no other table with text shares it.
    const table = tables.find((t) => textOf(t) !== "");
    return { month: table ? taxMonth(readTable(table, SERVICE, TAX_COLUMNS), MONTHS_ES[mes - 1] ?? String(mes)) : null, published };
  });
}
