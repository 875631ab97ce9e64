// zeus.sii.cl: boletas de prestación de servicios de terceros (BTE) issued by a taxpayer, and the
// annual summary page (docs/sii-services.md §6: one row per month in eight columns, a `*Totales` row,
// latin1 HTML; the POST fields of the annual request are inferred from the menu form).
import type { Context } from "hono";
import { MONTHS_ES } from "../lib/dates.ts";
import { formDecodeLatin1, responseText } from "../lib/latin1.ts";
import { claveLoginWall, latin1Html } from "./pages.ts";
import type { BteSlip } from "./records.ts";
import type { SandboxState } from "./state.ts";

export type { BteSlip } from "./records.ts";

export const NO_MOVEMENTS = "NO REGISTRA MOVIMIENTOS PARA LA FECHA SEÑALADA";

/** The company's BTEs: a few per month over 2025 and the first half of 2026 (deterministic). */
export function sandboxBte(): BteSlip[] {
  const slips: BteSlip[] = [];
  let folio = 1;
  for (const [year, months] of [
    [2025, [1, 2, 3, 5, 8, 11, 12]],
    [2026, [1, 2, 3, 4, 5, 6]],
  ] as const) {
    for (const month of months) {
      for (let i = 0; i < (month % 3) + 1; i++) {
        const day = String(3 + i * 7).padStart(2, "0");
        slips.push({
          emisor: "76192083-9",
          folio,
          fecha: `${year}-${String(month).padStart(2, "0")}-${day}`,
          anulada: folio % 7 === 0,
          bruto: 50_000 + ((folio * 37_500) % 400_000),
        });
        folio++;
      }
    }
  }
  return slips;
}

/** Retention on BTE: 13.75 % from 2025 on (the scheduled rate), 13 % before. */
export const retentionRate = (year: number) => (year >= 2025 ? 0.1375 : 0.13);

/** `1.234.567`, as the SII writes amounts. */
const miles = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ".");

export function bteMenu(c: Context, state: SandboxState, now: number): Response {
  if (!state.sessionOf(c.req.header("cookie"), now)) return claveLoginWall();
  const years = Array.from({ length: 22 }, (_, i) => 2005 + i)
    .map((y) => `<option value="${y}">${y}</option>`)
    .join("");
  return latin1Html(
    `<h3>CONSULTA DE BTE's EMITIDAS</h3><form method="POST" action="/cvc_cgi/bte/bte_indiv_cons2"><select name="ANOA">${years}</select><input type="hidden" name="TIPO" value="anual"><input type="hidden" name="AUTEN" value="RUTCLAVE"><input type="hidden" name="CNTR" value="1"><input type="submit" value="Consultar"></form>`,
  );
}

export async function bteAnnual(c: Context, state: SandboxState, now: number): Promise<Response> {
  const rut = state.sessionOf(c.req.header("cookie"), now)?.rut;
  if (!rut) return claveLoginWall();
  const form = formDecodeLatin1(await responseText(c.req.raw));
  const year = Number(form.get("ANOA"));
  if (form.get("TIPO") !== "anual" || !Number.isInteger(year)) return latin1Html("<p>DEBE SELECCIONAR EL AÑO A CONSULTAR.</p>");
  const slips = state.bte.filter((s) => s.emisor === rut && s.fecha.startsWith(`${year}-`));
  const header = `<h3>INFORME ANUAL DE BTE's EMITIDAS AÑO ${year}</h3>`;
  if (!slips.length) return latin1Html(`${header}<p>${NO_MOVEMENTS}</p>`);
  const rate = retentionRate(year);
  const totals = { vigentes: 0, anuladas: 0, bruto: 0, retencion: 0, liquido: 0 };
  const rows = MONTHS_ES.map((name, index) => {
    const month = slips.filter((s) => Number(s.fecha.slice(5, 7)) === index + 1);
    const valid = month.filter((s) => !s.anulada);
    const bruto = valid.reduce((sum, s) => sum + s.bruto, 0);
    const retencion = Math.round(bruto * rate);
    const row = { vigentes: valid.length, anuladas: month.length - valid.length, bruto, retencion, liquido: bruto - retencion };
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += row[key];
    const folios = month.map((s) => s.folio);
    const range = folios.length ? [Math.min(...folios), Math.max(...folios)] : [0, 0];
    return annualRow(name, [...range, row.vigentes, row.anuladas, row.bruto, row.retencion, row.liquido]);
  });
  const all = slips.map((s) => s.folio);
  const total = annualRow("*Totales", [
    Math.min(...all),
    Math.max(...all),
    totals.vigentes,
    totals.anuladas,
    totals.bruto,
    totals.retencion,
    totals.liquido,
  ]);
  // The eight columns and the `*Totales` row a public Laravel reader of the SII's saved annual page takes
  // (App/Services/Sii/BteResumenAnualParser.php: eight <td> cells a row, closed </td> and </tr>, month name first;
  // `RUT:`, `Contribuyente:` and `año YYYY` in the page's text). Inferred: the header texts (its view's
  // preview headings), every month listed even without slips (a public Selenium script reads the totals on
  // row 15), 0 in the folio cells of an empty month, and the totals' folio cells as the year's range.
  return latin1Html(
    `<TABLE WIDTH="100%"><TR><TD><IMG SRC="/cvc_cgi/bte/img/logo.gif"></TD><TD>${header}</TD></TR></TABLE>\n<TABLE><TR><TD>Contribuyente: ${rut}</TD></TR><TR><TD>RUT: ${rut}</TD></TR><TR><TD>Informe del año ${year}</TD></TR></TABLE>\n<TABLE BORDER=1>\n<TR><TH>Mes</TH><TH>Folio Inicial</TH><TH>Folio Final</TH><TH>Vigentes</TH><TH>Nulas</TH><TH>Honorario Bruto</TH><TH>Retenciones</TH><TH>Total L&iacute;quido</TH></TR>\n${rows.join("")}${total}</TABLE>`,
  );
}

/** A row of the annual table: the label, two folio cells and five amounts, closed cells. */
const annualRow = (label: string, values: number[]) =>
  `<TR><TD>${label}</TD>${values.map((v, i) => `<TD ALIGN=right>${i < 4 ? v : miles(v)}</TD>`).join("")}</TR>\n`;
