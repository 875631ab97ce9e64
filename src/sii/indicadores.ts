// The SII's public indicator pages (sii-upstream §10), read into numbers. No credentials.
import { MONTHS_ES } from "../lib/dates.ts";
import { ApiError } from "../platform/errors.ts";
import { tableRows } from "./html.ts";
import { pageText, type SiiContext, siiFetch } from "./http.ts";

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

const monthIndex = (name: string) => (MONTHS_ES as readonly string[]).indexOf(name.trim().toUpperCase()) + 1;

/** A yearly page's parts: the HTML after each month heading (`<h2>Enero</h2>`, `<h3>…`), whatever their order. */
function monthSections(html: string): [number, string][] {
  const headings = [...html.matchAll(/<h[23][^>]*>\s*([A-Za-zÁÉÍÓÚáéíóú]+)[^<]*<\/h[23]>/g)];
  return headings.flatMap((heading, i): [number, string][] => {
    const month = monthIndex(heading[1] ?? "");
    if (month < 1) return [];
    return [[month, html.slice((heading.index ?? 0) + heading[0].length, headings[i + 1]?.index ?? html.length)]];
  });
}

/** A yearly page of daily values: one table per month, (day, value) pairs. */
export function parseDailyYear(html: string): DailyYear {
  const year: DailyYear = {};
  for (const [month, section] of monthSections(html)) {
    const days: Record<number, number> = {};
    for (const [, day = "", value = ""] of section.matchAll(/<th[^>]*>\s*(\d{1,2})\s*<\/th>\s*<td[^>]*>([^<]*)<\/td>/g)) {
      const parsed = parseSiiDecimal(value);
      if (parsed !== null) days[Number(day)] = parsed;
    }
    year[month] = days;
  }
  return year;
}

/** The UF of every published day of a year; null when the SII has no page for that year. */
export async function ufYear(ctx: SiiContext, anio: number): Promise<DailyYear | null> {
  const page = await yearPage(ctx, `uf/uf${anio}.htm`, hasMonthSections);
  return page === null ? null : parseDailyYear(page);
}

/**
 * A yearly page, or null when the SII has none for that year. A page that is cut short or has no
 * month in it is not the SII's yearly page: it is a failure (502), never "not published" (404),
 * which would be cached.
 */
async function yearPage(ctx: SiiContext, path: string, hasMonths: (html: string) => boolean): Promise<string | null> {
  const answer = await siiFetch(ctx, new Request(`${BASE}/${path}`), { service: "indicadores", read: true });
  if (answer.status === 404) return null;
  const complete = /<\/html>\s*$/i.test(answer.text);
  if (!complete || !hasMonths(answer.text)) {
    throw new ApiError(
      502,
      "SII_GATEWAY_ERROR",
      `The SII's page ${path} is ${complete ? "not the yearly table it should be" : "cut short"}`,
      {
        details: { service: "indicadores", sii_status: answer.status, sii_message: pageText(answer.text) || answer.text.slice(-200) },
      },
    );
  }
  return answer.text;
}

const hasMonthSections = (html: string) => monthSections(html).length > 0;

export interface CorreccionMonth {
  mes: number;
  nombre_mes: string;
  /** Percentage by which an amount of that month is adjusted; null when not published yet. */
  porcentaje: number | null;
  factor: number | null;
}

/** Corrección monetaria of a year: month, percentage, factor. */
export async function correccionYear(ctx: SiiContext, anio: number): Promise<CorreccionMonth[] | null> {
  const page = await yearPage(ctx, `correccion_monetaria/correccion${anio}.htm`, (html) =>
    tableRows(html).some((row) => monthIndex(row[0] ?? "") > 0),
  );
  if (page === null) return null;
  return tableRows(page)
    .filter((row) => monthIndex(row[0] ?? "") > 0)
    .map((row) => ({
      mes: monthIndex(row[0] ?? ""),
      nombre_mes: (row[0] ?? "").trim().toUpperCase(),
      porcentaje: parseSiiDecimal(row[1] ?? ""),
      factor: parseSiiDecimal(row[2] ?? ""),
    }));
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

/** `-.-` and `Exento` are zero; `Y MAS` / `MAS` mean no limit. */
function amount(cell: string): number | null {
  if (/^-\.-$|exento/i.test(cell.trim())) return 0;
  if (/\bmas\b/i.test(cell)) return null;
  return parseSiiDecimal(cell.replace("%", ""));
}

/** Impuesto único de segunda categoría: per month (1-12), the brackets of each pay period. */
export async function segundaCategoriaYear(ctx: SiiContext, anio: number): Promise<Record<number, SegundaCategoriaMonth> | null> {
  const page = await yearPage(ctx, `impuesto_2da_categoria/impuesto${anio}.htm`, hasMonthSections);
  if (page === null) return null;
  const months: Record<number, SegundaCategoriaMonth> = {};
  for (const [mes, section] of monthSections(page)) {
    const month: SegundaCategoriaMonth = { mensual: [], quincenal: [], semanal: [], diario: [] };
    let period: (typeof PERIODS)[number] | undefined;
    for (const row of tableRows(section)) {
      if (row.length < 6) continue;
      const named = PERIODS.find((p) => p === (row[0] ?? "").trim().toLowerCase());
      if (named) period = named;
      const [desde, hasta, factor, rebaja, maxima] = row.slice(1, 6).map(amount);
      if (!period || desde === null || desde === undefined || factor === null || factor === undefined) continue;
      month[period].push({ desde, hasta: hasta ?? null, factor, rebaja: rebaja ?? 0, tasa_efectiva_maxima: maxima ?? null });
    }
    months[mes] = month;
  }
  return months;
}
