// BTE (boletas de terceros) issued, at zeus.sii.cl in a clave session: the annual summary page
// (docs/sii-services.md §6), read into a monthly table and its totals.

import { ApiError } from "../lib/api-error.ts";
import { MONTHS_ES } from "../lib/dates.ts";
import { formEncodeLatin1 } from "../lib/latin1.ts";
import { LOGIN_MARKERS } from "./bhe.ts";
import { browse } from "./browse.ts";
import type { CookieJar } from "./cookies.ts";
import { formatChanged } from "./format-changed.ts";
import { cellsOf, parsePage, textOf } from "./html.ts";
import { pageText, type SiiContext } from "./http.ts";
import { SessionExpired } from "./sessions.ts";
import { cell, findTable } from "./table.ts";

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

const monthOf = (label: string) => (MONTHS_ES as readonly string[]).indexOf(label.toUpperCase());

// The annual page's columns, by label. Decided by a public Laravel project's reader of the SII's saved
// annual page (App/Services/Sii/BteResumenAnualParser.php; its import view names the file "Archivo SII
// (bte_indiv_cons4)" and heads its preview Mes, Folio Inicial, Folio Final, Vigentes, Nulas, Bruto,
// Retenciones, Líquido): eight cells a row, month name first, the totals row labelled `*Totales`.
// Inferred: the SII's own header texts (the synonyms below cover the view's and this gateway's old ones).
const COLUMNS = {
  mes: ["mes", "meses", "periodo"],
  folio_inicial: ["folio inicial", "folio desde", "desde", "primer folio"],
  folio_final: ["folio final", "folio hasta", "hasta", "ultimo folio"],
  vigentes: ["vigentes", "boletas vigentes", "vigente"],
  anuladas: ["nulas", "anuladas", "boletas nulas", "boletas anuladas", "nula", "anulada"],
  bruto: ["bruto", "honorario bruto", "honorarios brutos", "monto bruto", "total bruto"],
  retencion: ["retenciones", "retencion", "retenido", "monto retenido", "impuesto retenido"],
  liquido: ["liquido", "total liquido", "monto liquido", "pagado", "monto pagado", "neto"],
} as const;

const SERVICE = "bte_report";

/** An amount or count cell: digits with `.` thousands; blank is 0 (an empty month); anything else refuses the page. */
function count(text: string, column: string): number {
  const clean = text.replace(/[\s\u00a0$]/g, "");
  if (clean === "" || clean === "-") return 0;
  if (!/^-?\d{1,3}(\.\d{3})*$|^-?\d+$/.test(clean))
    throw formatChanged(SERVICE, `column ${column} holds "${text.slice(0, 40)}", not a whole number`);
  return Number(clean.replace(/\./g, ""));
}

interface Row extends BteTotals {
  folio_inicial: number;
  folio_final: number;
}

/**
 * The summary table read by label, then checked against what it promises itself: months 1-12 once
 * each, gross − withheld = net on every row, valid + void = the folio range where the row shows one,
 * the totals row equal to the sum of the months. Any failure is SII_FORMAT_CHANGED, never numbers.
 */
export function readAnnualTable(html: string, status = 200): { mensual: BteMonth[]; anual: BteTotals; cells: string[][] } {
  const page = parsePage(html);
  // A page without a single month row is an error page, not a summary in another shape.
  // Only each row's first cell is read for this (the table's reader reads them all next).
  if (!Array.from(page.querySelectorAll("tr")).some((row) => monthOf(textOf(cellsOf(row)[0])) >= 0)) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII answered without the BTE summary table", {
      details: { service: SERVICE, sii_status: status, sii_message: pageText(html) },
    });
  }
  const table = findTable(page, SERVICE, COLUMNS);
  const at = (row: string[], key: keyof typeof COLUMNS) => count(cell(row, table.columns[key]), key);
  const read = (row: string[]): Row => {
    const vigentes = at(row, "vigentes");
    const anuladas = at(row, "anuladas");
    const bruto = at(row, "bruto");
    const retencion = at(row, "retencion");
    const total = at(row, "liquido");
    return {
      folio_inicial: at(row, "folio_inicial"),
      folio_final: at(row, "folio_final"),
      folios: vigentes + anuladas,
      vigentes,
      anuladas,
      bruto,
      retencion,
      total,
    };
  };
  const months = new Map<number, Row>();
  let totals: Row | undefined;
  for (const row of table.rows) {
    const label = cell(row, table.columns.mes).replace(/^\*+/, "").trim();
    if (!label && row.every((text) => !text)) continue;
    const month = monthOf(label) + 1;
    const values = read(row);
    if (values.bruto - values.retencion !== values.total) throw formatChanged(SERVICE, `gross - withheld != net on the row "${label}"`);
    if (month > 0) {
      if (months.has(month)) throw formatChanged(SERVICE, `month ${label} listed twice`);
      const range = values.folio_final - values.folio_inicial + 1;
      if ((values.folio_inicial > 0 || values.folio_final > 0) && range !== values.folios) {
        throw formatChanged(
          SERVICE,
          `valid + void (${values.folios}) != the folio range ${values.folio_inicial}-${values.folio_final} in ${label}`,
        );
      }
      months.set(month, values);
    } else if (/^totales?\b/i.test(label)) {
      if (totals) throw formatChanged(SERVICE, "two totals rows");
      totals = values;
    } else throw formatChanged(SERVICE, `a row that is neither a month nor the totals ("${label.slice(0, 40)}")`);
  }
  if (!totals) throw formatChanged(SERVICE, "no totals row");
  const keys = ["vigentes", "anuladas", "bruto", "retencion", "total"] as const;
  for (const key of keys) {
    const sum = Array.from(months.values()).reduce((s, m) => s + m[key], 0);
    if (sum !== totals[key]) throw formatChanged(SERVICE, `totals row != sum of the months in column ${key}`);
  }
  const totalsOf = ({ folios, vigentes, anuladas, bruto, retencion, total }: Row): BteTotals => ({
    folios,
    vigentes,
    anuladas,
    bruto,
    retencion,
    total,
  });
  // The page lists every month (row 15 is the totals: two header rows and twelve months, as docs/sii-services.md §6
  // records); the answer keeps the months with slips, as its contract says.
  const mensual = Array.from(months.entries())
    .sort(([a], [b]) => a - b)
    .filter(([, m]) => m.folios > 0 || m.bruto > 0)
    .map(([mes, m]): BteMonth => ({ mes, nombre_mes: MONTHS_ES[mes - 1] ?? "", ...totalsOf(m) }));
  return { mensual, anual: totalsOf(totals), cells: table.cells };
}

/**
 * The request stays the menu's form posted to `bte_indiv_cons2` with `TIPO=anual` (inferred, by analogy with
 * the monthly report's fields that jsanbae/sii_api src/Endpoints/BHE.php sends there). The saved page the
 * Laravel reader takes is named "bte_indiv_cons4", which suggests the SII renders the annual report at
 * that address (another public client found it answers there, unverified with a session); nothing public
 * shows the form that leads to it, so the address is not changed on a file name alone. Either way the
 * page is read by label and checked, so a different page is refused rather than misread.
 */
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
  return { ...readAnnualTable(page.text, page.status), page: page.text };
}
