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
