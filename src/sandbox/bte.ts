// zeus.sii.cl: boletas de prestación de servicios de terceros (BTE) issued by a taxpayer, and the
// annual summary page (docs/sii-services.md §6: one row per month, a totals row, latin1 HTML; the POST
// fields of the annual request are inferred from the menu form).
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
  const totals = { folios: 0, vigentes: 0, anuladas: 0, bruto: 0, retencion: 0, pagado: 0 };
  const rows: string[] = [];
  MONTHS_ES.forEach((name, index) => {
    const month = slips.filter((s) => Number(s.fecha.slice(5, 7)) === index + 1);
    if (!month.length) return;
    const valid = month.filter((s) => !s.anulada);
    const bruto = valid.reduce((sum, s) => sum + s.bruto, 0);
    const retencion = Math.round(bruto * rate);
    const row = {
      folios: month.length,
      vigentes: valid.length,
      anuladas: month.length - valid.length,
      bruto,
      retencion,
      pagado: bruto - retencion,
    };
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += row[key];
    rows.push(
      `<TR><TD>${name}<TD ALIGN=right>${row.folios}<TD ALIGN=right>${row.vigentes}<TD ALIGN=right>${row.anuladas}<TD ALIGN=right>${miles(row.bruto)}<TD ALIGN=right>${miles(row.retencion)}<TD ALIGN=right>${miles(row.pagado)}\n`,
    );
  });
  const total = `<TR><TD><B>TOTAL</B><TD ALIGN=right>${totals.folios}<TD ALIGN=right>${totals.vigentes}<TD ALIGN=right>${totals.anuladas}<TD ALIGN=right>${miles(totals.bruto)}<TD ALIGN=right>${miles(totals.retencion)}<TD ALIGN=right>${miles(totals.pagado)}\n`;
  // The page lays itself out in tables and the summary comes after them (jsanbae/sii_api
  // src/DomParser/BTEInformeEmitidasSummaryParser.php reads the 3rd <table> of the monthly report).
  // Inferred: the same layout here, and HTML 4.01 cells without closing tags, in upper case.
  const layout = `<TABLE WIDTH="100%"><TR><TD><IMG SRC="/cvc_cgi/bte/img/logo.gif"><TD>${header}</TABLE>\n<TABLE><TR><TD>Contribuyente:<TD>${rut}</TABLE>\n`;
  return latin1Html(
    `${layout}<TABLE BORDER=1>\n<TR><TH>MES<TH>CANTIDAD BOLETAS<TH>VIGENTES<TH>ANULADAS<TH>MONTO BRUTO<TH>MONTO RETENIDO<TH>MONTO PAGADO\n${rows.join("")}${total}</TABLE>`,
  );
}
