// The SII's public indicator pages (sii-upstream §10), read into numbers. No credentials.
import { MONTHS_ES } from "../lib/dates.ts";
import { type SiiContext, siiFetch } from "./http.ts";

const BASE = "https://www.sii.cl/valores_y_fechas";

/** month (1-12) → day (1-31) → value */
export type DailyYear = Record<number, Record<number, number>>;

/** `40.875,09` → 40875.09; blank → null. */
export function parseSiiDecimal(text: string): number | null {
  const clean = text.replace(/&nbsp;|\s/g, "");
  if (!clean || !/\d/.test(clean)) return null;
  const value = Number(clean.replace(/\./g, "").replace(",", "."));
  return Number.isFinite(value) ? value : null;
}

/** A yearly page of daily values: one table per month under `<h2>Mes</h2>`, (day, value) pairs. */
export function parseDailyYear(html: string): DailyYear {
  const year: DailyYear = {};
  const headings = [...html.matchAll(/<h[23][^>]*>\s*([A-Za-zÁÉÍÓÚáéíóú]+)[^<]*<\/h[23]>/g)];
  headings.forEach((heading, i) => {
    const month = (MONTHS_ES as readonly string[]).indexOf((heading[1] ?? "").toUpperCase()) + 1;
    if (month < 1) return;
    const section = html.slice((heading.index ?? 0) + heading[0].length, headings[i + 1]?.index ?? html.length);
    const days: Record<number, number> = {};
    for (const [, day = "", value = ""] of section.matchAll(/<th[^>]*>\s*(\d{1,2})\s*<\/th>\s*<td[^>]*>([^<]*)<\/td>/g)) {
      const parsed = parseSiiDecimal(value);
      if (parsed !== null) days[Number(day)] = parsed;
    }
    year[month] = days;
  });
  return year;
}

/** The UF of every published day of a year; null when the SII has no page for that year. */
export async function ufYear(ctx: SiiContext, anio: number): Promise<DailyYear | null> {
  const answer = await siiFetch(ctx, new Request(`${BASE}/uf/uf${anio}.htm`), { service: "indicadores", read: true });
  if (answer.status === 404) return null;
  return parseDailyYear(answer.text);
}
