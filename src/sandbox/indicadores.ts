// www.sii.cl/valores_y_fechas/: the SII's public yearly pages of indicators (docs/sii-services.md §10), latin1
// HTML. Each shape below names the public source it is rebuilt from (facts only) or says "inferred".
// The sandbox's numbers are a smooth made-up series.
import { MONTHS_ES } from "../lib/dates.ts";
import { latin1Html } from "./pages.ts";

/** The first year the sandbox publishes. */
export const FIRST_UF_YEAR = 2013;

const DAY_MS = 86_400_000;

/** The sandbox UF of a date (UTC midnight): about 3.5 % a year from 22.840,75 on 2013-01-01. */
export function sandboxUf(date: Date): number {
  const days = Math.round((date.getTime() - Date.UTC(FIRST_UF_YEAR, 0, 1)) / DAY_MS);
  return Math.round(22_840.75 * (1 + 0.035 / 365) ** days * 100) / 100;
}

/** The SII publishes the UF up to the 9th of the next month once the 9th of this one has come. */
export function lastPublishedUf(now: Date): Date {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  return now.getUTCDate() >= 9 ? new Date(Date.UTC(y, m + 1, 9)) : new Date(Date.UTC(y, m, 9));
}

/** `40.875,09` */
export function siiDecimal(value: number): string {
  const [int = "0", dec = "00"] = value.toFixed(2).split(".");
  return `${int.replace(/\B(?=(\d{3})+(?!\d))/g, ".")},${dec}`;
}

const title = (name: string) => name.charAt(0) + name.slice(1).toLowerCase();

/**
 * The UF page: months in reverse order (crilam/mcp-sii src/scrapers/indicadores.ts), each in a
 * `<div class='meses' id='mes_enero'>` (felipemehr/quebot api/search.php reads `id='mes_{month}'`) under an
 * `<h2>Enero</h2>` heading (victorsilvaTR/LpFacturacion Facturacion/VB50/ModSII.bas). Row d holds days d,
 * d+10 and d+20, each a `<th><strong>d</strong></th>` and its `<td>` (both sources); the 11th row has only
 * day 31, its other header cells `&nbsp;` (ModSII.bas). No header row above the days: ModSII.bas takes the
 * d-th row after the heading as day d's, quebot reads the pairs alone. A value not published yet is an empty cell.
 */
export function ufYearPage(year: number, now: Date): Response {
  const last = lastPublishedUf(now);
  if (year < FIRST_UF_YEAR || year > last.getUTCFullYear()) {
    return latin1Html("<h1>Not Found</h1><p>The requested URL was not found on this server.</p>", 404);
  }
  const cell = (month: number, day: number) => {
    const date = new Date(Date.UTC(year, month, day));
    if (date.getUTCMonth() !== month) return "<th>&nbsp;</th><td>&nbsp;</td>"; // no such day in this month
    return `<th><strong>${day}</strong></th><td>${date > last ? "" : siiDecimal(sandboxUf(date))}</td>`;
  };
  const sections: string[] = [];
  for (let month = 11; month >= 0; month--) {
    const name = MONTHS_ES[month] ?? "";
    const rows = Array.from({ length: 10 }, (_, i) => `<tr>${cell(month, i + 1)}${cell(month, i + 11)}${cell(month, i + 21)}</tr>`);
    rows.push(`<tr><th>&nbsp;</th><td>&nbsp;</td><th>&nbsp;</th><td>&nbsp;</td>${cell(month, 31)}</tr>`);
    sections.push(
      `<div class='meses' id='mes_${name.toLowerCase()}'><h2>${title(name)}</h2><div class='table-responsive'><table class='table table-hover table-bordered'>` +
        `<tbody>\n${rows.join("\n")}\n</tbody></table></div></div>`,
    );
  }
  return latin1Html(`<h1>Unidad de Fomento (UF) ${year}</h1>\n${sections.join("\n")}`);
}

// Monthly indicators derived from a made-up UTM series (CLP), for the corrección monetaria and
// the second-category tax pages.

/** The sandbox UTM of a month (month 1-12). */
export function sandboxUtm(year: number, month: number): number {
  const months = (year - FIRST_UF_YEAR) * 12 + (month - 1);
  return Math.round(40_085 * (1 + 0.003) ** months);
}

/** Not published: the current month's tables appear once it has started (months ahead are not). */
function published(year: number, month: number, now: Date): boolean {
  return year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month <= now.getUTCMonth() + 1);
}

const notFound = () => latin1Html("<h1>Not Found</h1><p>The requested URL was not found on this server.</p>", 404);

/** `3,9` style (comma decimal, no thousands separator for small numbers). */
const comma = (value: number, decimals: number) => value.toFixed(decimals).replace(".", ",");

/** `3,9`, `-0,2`: one decimal, comma. */
const percent1 = (value: number) => comma(Math.round(value * 10) / 10, 1);

/**
 * Corrección monetaria of a year: a matrix (the audit's public sources read one table of about 156 cells). A
 * row per origin, "Capital Inicial" first and then each month; a column per month the amount is corrected
 * to; the cell is the percentage, one decimal, negative when prices fell (a public TypeScript copy of the
 * 2024-2026 tables: `capital_inicial: { 1: -0.2, … }`, each month's row only for later months). The December
 * column is the correction to the year's end (victorsilvaTR/LpFacturacion ModSII.bas reads column 12 as
 * 1 + %/100). A column appears once its month is published. Inferred: HTML 4.01 cells and rows without
 * closing tags, and the capital's base (the previous December).
 */
export function correccionPage(year: number, now: Date): Response {
  if (year < FIRST_UF_YEAR || !published(year, 1, now)) return notFound();
  const base = (origin: number) => (origin === 0 ? sandboxUtm(year - 1, 12) : sandboxUtm(year, origin));
  const row = (origin: number, label: string) => {
    const cells = Array.from({ length: 12 }, (_, i) => {
      const column = i + 1;
      if (column <= origin || !published(year, column, now)) return "<td>";
      return `<td>${percent1((sandboxUtm(year, column) / base(origin) - 1) * 100)}`;
    });
    return `<tr><th>${label}${cells.join("")}`;
  };
  const header = `<tr><th>&nbsp;${MONTHS_ES.map((name) => `<th>${title(name)}`).join("")}`;
  const rows = [row(0, "Capital Inicial"), ...MONTHS_ES.map((name, i) => row(i + 1, title(name)))];
  return latin1Html(`<h1>Correcci&oacute;n Monetaria ${year}</h1>\n<table class="tabla">\n${header}\n${rows.join("\n")}\n</table>`);
}

/** Monthly brackets in UTM: [from, to, rate]; the last one has no upper limit. */
const BRACKETS: [number, number | null, number][] = [
  [0, 13.5, 0],
  [13.5, 30, 0.04],
  [30, 50, 0.08],
  [50, 70, 0.135],
  [70, 90, 0.23],
  [90, 120, 0.304],
  [120, 310, 0.35],
  [310, null, 0.4],
];

const PERIODS: [string, number][] = [
  ["MENSUAL", 1],
  ["QUINCENAL", 2],
  ["SEMANAL", 30 / 7],
  ["DIARIO", 30],
];

/** `$ 941.638,50` */
const pesos = (value: number) => `$ ${siiDecimal(value)}`;

/**
 * The tax table's three header rows as crilam/mcp-sii tests/fixtures/indicadores-impuesto2da.html gives them
 * (its reader: "las tres filas del <thead>"): a title over the six columns, then the labels, `Desde` and
 * `Hasta` under the renta's label. Not verified against the SII's page.
 */
const TAX_HEADER =
  "<thead><tr><th colspan='6'>Monto de C&aacute;lculo del Impuesto &Uacute;nico de Segunda Categor&iacute;a</th></tr>" +
  "<tr><th>Per&iacute;odos</th><th colspan='2'>Monto de la renta l&iacute;quida imponible</th><th>Factor</th><th>Cantidad a rebajar</th><th>Tasa de Impuesto Efectiva</th></tr>" +
  "<tr><th></th><th>Desde</th><th>Hasta</th><th></th><th></th><th></th></tr></thead>";

/**
 * Impuesto único de segunda categoría: per month a `<div id='mes_marzo'>` (dimabe-odoo/sociedadJP
 * dimabe_rrhh/utils/tax_unique.py reads `id=mes_{month}` and its `<tbody>` rows) with six cells a row: the
 * period written once (`MENSUAL`, `QUINCENAL`, `SEMANAL`, `DIARIO`) and blank below, the first bracket's
 * `-.-` amounts and `Exento` (crilam/mcp-sii; a public Django payroll command tests
 * `texts[0] == "MENSUAL" and "-.-" in texts[1]`), amounts `$ 941.638,50`, the next bracket from one cent
 * above, the last upper bound `Y MÁS` (both Python sources). Inferred: the `<h3>` month title, the
 * `2,20%` rate cell and the last bracket's `MÁS` rate.
 */
export function impuestoSegundaPage(year: number, now: Date): Response {
  if (year < FIRST_UF_YEAR || !published(year, 1, now)) return notFound();
  const sections: string[] = [];
  for (let month = 12; month >= 1; month--) {
    if (!published(year, month, now)) continue;
    const utm = sandboxUtm(year, month);
    const rows: string[] = [];
    for (const [period, divisor] of PERIODS) {
      let rebaja = 0;
      let previous = 0;
      BRACKETS.forEach(([from, to, rate], i) => {
        const desde = i === 0 ? 0 : previous + 0.01;
        const hasta = to === null ? null : Math.round(((to * utm) / divisor) * 100) / 100;
        if (i > 0) rebaja += (rate - (BRACKETS[i - 1]?.[2] ?? 0)) * ((from * utm) / divisor);
        const maxima = hasta === null ? "M&Aacute;S" : rate === 0 ? "Exento" : `${comma((rate - rebaja / hasta) * 100, 2)}%`;
        const cells = [
          i === 0 ? period : "&nbsp;",
          i === 0 ? "-.-" : pesos(desde),
          hasta === null ? "Y M&Aacute;S" : pesos(hasta),
          rate === 0 ? "Exento" : comma(rate, 3).replace(/0+$/, ""),
          i === 0 ? "-.-" : pesos(Math.round(rebaja * 100) / 100),
          maxima,
        ];
        rows.push(`<tr>${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`);
        previous = hasta ?? 0;
      });
    }
    const name = MONTHS_ES[month - 1] ?? "";
    sections.push(
      `<div id='mes_${name.toLowerCase()}'><h3>${title(name)}</h3><table class="tabla">${TAX_HEADER}` +
        `<tbody>\n${rows.join("\n")}\n</tbody></table></div>`,
    );
  }
  return latin1Html(`<h1>Impuesto &Uacute;nico de Segunda Categor&iacute;a ${year}</h1>\n${sections.join("\n")}`);
}
