// www.sii.cl/valores_y_fechas/: the SII's public yearly pages of indicators (sii-upstream §10),
// latin1 HTML with one table per month, months in reverse order, `40.875,09` numbers and blank
// cells for what is not published yet. The sandbox's UF is a smooth made-up series.
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

export function ufYearPage(year: number, now: Date): Response {
  const last = lastPublishedUf(now);
  if (year < FIRST_UF_YEAR || year > last.getUTCFullYear()) {
    return latin1Html("<h1>Not Found</h1><p>The requested URL was not found on this server.</p>", 404);
  }
  const cell = (month: number, day: number) => {
    const date = new Date(Date.UTC(year, month, day));
    if (date.getUTCMonth() !== month) return "<th></th><td></td>"; // no such day in this month
    return date > last ? `<th>${day}</th><td></td>` : `<th>${day}</th><td>${siiDecimal(sandboxUf(date))}</td>`;
  };
  const tables: string[] = [];
  for (let month = 11; month >= 0; month--) {
    const rows = Array.from({ length: 10 }, (_, i) => `<tr>${cell(month, i + 1)}${cell(month, i + 11)}${cell(month, i + 21)}</tr>`);
    rows.push(`<tr><th></th><td></td><th></th><td></td>${cell(month, 31)}</tr>`);
    tables.push(
      `<h2>${title(MONTHS_ES[month] ?? "")}</h2><table class="tabla"><tr><th>Día</th><th>Valor</th><th>Día</th><th>Valor</th><th>Día</th><th>Valor</th></tr>${rows.join("")}</table>`,
    );
  }
  return latin1Html(`<h1>Unidad de Fomento (UF) ${year}</h1>${tables.join("\n")}`);
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

/**
 * Corrección monetaria of a year: per month, the percentage by which an amount of that month is
 * adjusted to the end of the year, and the factor (inferred layout: month, %, factor).
 */
export function correccionPage(year: number, now: Date): Response {
  if (year < FIRST_UF_YEAR || !published(year, 1, now)) return notFound();
  const end = sandboxUtm(year, 12);
  const rows = MONTHS_ES.map((name, i) => {
    if (!published(year, i + 1, now)) return `<tr><td>${title(name)}</td><td></td><td></td></tr>`;
    const factor = end / sandboxUtm(year, i + 1);
    return `<tr><td>${title(name)}</td><td>${comma((factor - 1) * 100, 1)}</td><td>${comma(factor, 3)}</td></tr>`;
  });
  return latin1Html(
    `<h1>Corrección Monetaria ${year}</h1><table class="tabla"><tr><th>Mes</th><th>Porcentaje</th><th>Factor</th></tr>${rows.join("")}</table>`,
  );
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

/** Impuesto único de segunda categoría: per month, the brackets for each pay period. */
export function impuestoSegundaPage(year: number, now: Date): Response {
  if (year < FIRST_UF_YEAR || !published(year, 1, now)) return notFound();
  const sections: string[] = [];
  for (let month = 12; month >= 1; month--) {
    if (!published(year, month, now)) continue;
    const utm = sandboxUtm(year, month);
    const rows: string[] = [];
    for (const [period, divisor] of PERIODS) {
      let rebaja = 0;
      BRACKETS.forEach(([from, to, rate], i) => {
        const desde = (from * utm) / divisor;
        const hasta = to === null ? null : (to * utm) / divisor;
        if (i > 0) rebaja += (rate - (BRACKETS[i - 1]?.[2] ?? 0)) * desde;
        const maxima = hasta === null ? "MAS" : rate === 0 ? "Exento" : `${comma((rate - rebaja / hasta) * 100, 2)}%`;
        const cells = [
          i === 0 ? period : "",
          i === 0 ? "-.-" : siiDecimal(desde),
          hasta === null ? "Y MAS" : siiDecimal(hasta),
          rate === 0 ? "Exento" : comma(rate, 3),
          i === 0 ? "-.-" : siiDecimal(rebaja),
          maxima,
        ];
        rows.push(`<tr>${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`);
      });
    }
    sections.push(
      `<h3>${title(MONTHS_ES[month - 1] ?? "")}</h3><table class="tabla"><tr><th>Periodo</th><th>Monto de la renta líquida imponible desde</th><th>hasta</th><th>Factor</th><th>Cantidad a rebajar</th><th>Tasa de impuesto efectiva, máxima por cada tramo de renta</th></tr>${rows.join("")}</table>`,
    );
  }
  return latin1Html(`<h1>Impuesto Único de Segunda Categoría ${year}</h1>${sections.join("\n")}`);
}
