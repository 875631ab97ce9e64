// BTE (boletas de terceros) issued, at zeus.sii.cl in a clave session: the annual summary page
// (docs/sii-services.md §6), read into a monthly table and its totals.

import { ApiError } from "../lib/api-error.ts";
import { MONTHS_ES } from "../lib/dates.ts";
import { formEncodeLatin1 } from "../lib/latin1.ts";
import { LOGIN_MARKERS } from "./bhe.ts";
import { browse } from "./browse.ts";
import type { CookieJar } from "./cookies.ts";
import { cellsOf, type HtmlElement, parsePage, textOf } from "./html.ts";
import { pageText, type SiiContext } from "./http.ts";
import { SessionExpired } from "./sessions.ts";

const ZEUS = "https://zeus.sii.cl/cvc_cgi/bte";
const NO_MOVEMENTS = /no registra movimientos/i;

export interface BteTotals {
  folios: number;
  vigentes: number;
  anuladas: number;
  bruto: number;
  retencion: number;
  total: number;
}

export interface BteMonth extends BteTotals {
  mes: number;
  nombre_mes: string;
}

export interface BteAnnual {
  mensual: BteMonth[];
  anual: BteTotals;
  /** The SII's page as received (ISO-8859-1 text), for `formato=html`. */
  page: string;
  /** The table's cells as the SII shows them, header first, for `formato=csv`. */
  cells: string[][];
}

/** `1.234.567` or `1.234,5` → number. */
export function siiNumber(text: string): number {
  const clean = text
    .replace(/\./g, "")
    .replace(",", ".")
    .replace(/[^\d.-]/g, "");
  return clean ? Number(clean) : 0;
}

const monthOf = (label: string) => (MONTHS_ES as readonly string[]).indexOf(label.toUpperCase());

/** A table's own rows (not those of a table nested in one of its cells), each as its cells' text. */
const ownRows = (table: HtmlElement) =>
  Array.from(table.querySelectorAll("tr"))
    .filter((row) => row.closest("table") === table)
    .map((row) => cellsOf(row).map(textOf));

/**
 * The summary table's rows, header first: the table with a row per month (the page may lay itself out in
 * tables around it; inferred), else the page's first table.
 */
function summaryRows(html: string): string[][] {
  const tables = Array.from(parsePage(html).querySelectorAll("table")).map(ownRows);
  return tables.find((rows) => rows.some((row) => monthOf(row[0] ?? "") >= 0)) ?? tables[0] ?? [];
}

export async function annualBte(ctx: SiiContext, jar: CookieJar, anio: number): Promise<BteAnnual> {
  const menu = await browse(ctx, jar, `${ZEUS}/bte_indiv_cons?1`, { service: "bte_menu", read: true }, { sameHostOnly: true });
  if (LOGIN_MARKERS.test(menu.text) || (menu.status >= 300 && menu.status < 400)) throw new SessionExpired();
  const page = await browse(
    ctx,
    jar,
    `${ZEUS}/bte_indiv_cons2`,
    { service: "bte_report", read: true },
    {
      method: "POST",
      form: formEncodeLatin1([
        ["ANOA", String(anio)],
        ["TIPO", "anual"],
        ["AUTEN", "RUTCLAVE"],
        ["CNTR", "1"],
      ]),
      headers: { referer: `${ZEUS}/bte_indiv_cons?1` },
      sameHostOnly: true,
    },
  );
  if (LOGIN_MARKERS.test(page.text)) throw new SessionExpired();
  const empty: BteTotals = { folios: 0, vigentes: 0, anuladas: 0, bruto: 0, retencion: 0, total: 0 };
  if (NO_MOVEMENTS.test(page.text)) return { mensual: [], anual: empty, page: page.text, cells: [] };
  const cells = summaryRows(page.text);
  if (!cells.length) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII answered without the BTE summary table", {
      details: { service: "bte_report", sii_status: page.status, sii_message: pageText(page.text) },
    });
  }
  const totals = (row: string[]): BteTotals => ({
    folios: siiNumber(row[1] ?? ""),
    vigentes: siiNumber(row[2] ?? ""),
    anuladas: siiNumber(row[3] ?? ""),
    bruto: siiNumber(row[4] ?? ""),
    retencion: siiNumber(row[5] ?? ""),
    total: siiNumber(row[6] ?? ""),
  });
  const mensual: BteMonth[] = [];
  let anual = empty;
  for (const row of cells.slice(1)) {
    const label = (row[0] ?? "").toUpperCase();
    const month = monthOf(label);
    if (month >= 0) mensual.push({ mes: month + 1, nombre_mes: label, ...totals(row) });
    else if (label.startsWith("TOTAL")) anual = totals(row);
  }
  return { mensual, anual, page: page.text, cells };
}
