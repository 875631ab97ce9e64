// palena/maullin /cvc_cgi/dte/: folio stamping (timbraje) and annulment as the SII's legacy CGIs
// do them (docs/sii-services.md §3.1, §3.4): latin1 HTML forms that carry their state in hidden inputs,
// a certificate session, the anti-hoarding refusal, the boletas' extra confirmation, and the
// CAF file download that needs a Referer.
import { santiagoDate } from "../lib/dates.ts";
import { authorize, type CgiContext, companyTypeQuery, form, hidden, holder, loginWall, page } from "./cvc-cgi.ts";
import { ALREADY_AUTHORIZED_PAGE, cafFile, DROPPED, takeQuirk } from "./folios-answers.ts";
import { buildCaf } from "./folios-caf.ts";
import { latin1Html } from "./pages.ts";
import type { FolioBook, FolioRange } from "./records.ts";
import type { SandboxState } from "./state.ts";
import { sandboxTaxpayer } from "./taxpayers.ts";

export type { FolioBook, FolioRange } from "./records.ts";

/** Most folios one stamping may ask for. */
export const MAX_AUTOR = 1000;
/** More unused folios than this and the SII stops stamping (anti-hoarding). */
export const HOARDING_LIMIT = 500;

export const DOCUMENT_NAMES: Record<number, string> = {
  33: "FACTURA ELECTRONICA",
  34: "FACTURA NO AFECTA O EXENTA ELECTRONICA",
  39: "BOLETA ELECTRONICA",
  41: "BOLETA NO AFECTA O EXENTA ELECTRONICA",
  43: "LIQUIDACION FACTURA ELECTRONICA",
  46: "FACTURA DE COMPRA ELECTRONICA",
  52: "GUIA DE DESPACHO ELECTRONICA",
  56: "NOTA DE DEBITO ELECTRONICA",
  61: "NOTA DE CREDITO ELECTRONICA",
  110: "FACTURA DE EXPORTACION ELECTRONICA",
  111: "NOTA DE DEBITO DE EXPORTACION ELECTRONICA",
  112: "NOTA DE CREDITO DE EXPORTACION ELECTRONICA",
};
/** Types that carry no IVA: the stamping form says AFECTO_IVA=N for them. */
const EXEMPT_TYPES = new Set([34, 41, 110, 111, 112]);

/** The folio history of one issuer and document type; the company starts with some invoices issued. */
export function folioBook(state: SandboxState, ambiente: string, rut: string, tipo: number): FolioBook {
  const id = `${ambiente}|${rut}|${tipo}`;
  let book = state.folios.get(id);
  if (!book) {
    book = { ranges: [], used: new Set(), annulled: new Set() };
    if (rut === "76192083-9" && tipo === 33) {
      book.ranges.push({ desde: 1, hasta: 100, fecha: "2026-01-05", mandatario: "11111111-1" });
      for (let folio = 1; folio <= 10; folio++) book.used.add(folio);
    }
    state.folios.set(id, book);
  }
  return book;
}

function unused(book: FolioBook): number {
  let count = 0;
  for (const range of book.ranges) {
    for (let folio = range.desde; folio <= range.hasta; folio++) if (!book.used.has(folio) && !book.annulled.has(folio)) count++;
  }
  return count;
}

const nextFolio = (book: FolioBook) => Math.max(0, ...book.ranges.map((r) => r.hasta)) + 1;

export function solicitaFolios(ctx: CgiContext): Response {
  if (!holder(ctx.c, ctx.state, ctx.now)) return loginWall(ctx.c);
  return page(
    "SOLICITUD DE TIMBRAJE ELECTRONICO",
    `<form method="POST" action="/cvc_cgi/dte/of_solicita_folios_dcto">RUT del contribuyente <input type="text" name="RUT_EMP"> - <input type="text" name="DV_EMP"><input type="hidden" name="FOLIO_INICIAL" value="0"><input type="submit" name="ACEPTAR" value="Continuar"></form>`,
  );
}

export async function solicitaFoliosDcto(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const tipo = Number(fields.get("COD_DOCTO"));
  const options = Object.entries(DOCUMENT_NAMES)
    .map(([code, name]) => `<option value="${code}"${Number(code) === tipo ? " selected" : ""}>${name} (COD. ${code})</option>`)
    .join("");
  const [rut, dv] = who.rut.split("-");
  if (!DOCUMENT_NAMES[tipo]) return page("ERROR", "<p>DEBE SELECCIONAR UN TIPO DE DOCUMENTO VALIDO.</p>");
  const book = folioBook(ctx.state, ctx.ambiente, who.rut, tipo);
  const disponibles = unused(book);
  if (disponibles > HOARDING_LIMIT) {
    return page(
      "SOLICITUD DE TIMBRAJE ELECTRONICO DE DOCUMENTOS",
      `<p>NO SE AUTORIZA TIMBRAJE: EL CONTRIBUYENTE REGISTRA ${disponibles} FOLIOS DISPONIBLES SIN UTILIZAR PARA ESTE TIPO DE DOCUMENTO.</p>`,
    );
  }
  return page(
    "SOLICITUD DE TIMBRAJE ELECTRONICO DE DOCUMENTOS",
    `<form name="form1" method="POST" action="/cvc_cgi/dte/of_confirma_folio">
<input name="RUT_EMP" readonly value="${rut}" type="Text"> - <input name="DV_EMP" readonly value="${dv}" type="Text">
<input name="FOLIO_INICIAL" type="hidden" value="0">
<select name="COD_DOCTO">${options}</select>
${hidden({ AFECTO_IVA: EXEMPT_TYPES.has(tipo) ? "N" : "S", CON_CREDITO: 0, CON_AJUSTE: 0, FACTOR: "1.00", ULT_TIMBRAJE: 1, CON_HISTORIA: book.ranges.length ? 1 : 0, CONTROL: "" })}
<input name="MAX_AUTOR" readonly value="${MAX_AUTOR}" type="text">
<input name="CANT_DOCTOS" type="text" size="8" maxlength="8">
<input name="ACEPTAR" type="SUBMIT" value="Solicitar Numeración">
<input name="FOLIOS_DISP" readonly value="${disponibles}" type="text">
</form>`,
  );
}

export async function confirmaFolio(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const tipo = Number(fields.get("COD_DOCTO"));
  const cantidad = Number(fields.get("CANT_DOCTOS"));
  if (!DOCUMENT_NAMES[tipo] || !Number.isInteger(cantidad) || cantidad < 1)
    return page("ERROR", "<p>DEBE INGRESAR LA CANTIDAD DE FOLIOS A TIMBRAR.</p>");
  if (cantidad > MAX_AUTOR) {
    return page(
      "ERROR",
      `<p>NO SE AUTORIZA TIMBRAJE: LA CANTIDAD SOLICITADA (${cantidad}) SUPERA EL MAXIMO AUTORIZADO (${MAX_AUTOR}).</p>`,
    );
  }
  const book = folioBook(ctx.state, ctx.ambiente, who.rut, tipo);
  const desde = nextFolio(book);
  const [rut, dv] = who.rut.split("-");
  // Boletas: the SII asks to confirm the first folio before it shows the stamping form, and takes
  // only its own button back (devlas-cl/dte-sii CafSolicitor.js posts ACEPTAR "Confirmar Folio
  // Inicial"; the page's fields as a public PHP client reads them). Refusing another ACEPTAR is inferred.
  const confirmed = fields.get("FOLIO_INICIAL") === String(desde) && fields.get("ACEPTAR") === "Confirmar Folio Inicial";
  if ((tipo === 39 || tipo === 41) && !confirmed) {
    return page(
      "Confirmar Folio Inicial",
      `<form method="POST" action="/cvc_cgi/dte/of_confirma_folio">${hidden({ NOMUSU: who.holder, CON_CREDITO: 0, CON_AJUSTE: 0, RUT_EMP: rut ?? "", DV_EMP: dv ?? "", COD_DOCTO: tipo, CANT_DOCTOS: cantidad })}Folio inicial <input type="text" name="FOLIO_INICIAL" value="${desde}"><input type="submit" name="ACEPTAR" value="Confirmar Folio Inicial"></form>`,
    );
  }
  const at = new Date(ctx.now - 3 * 3600_000); // America/Santiago, close enough for a form stamp
  return page(
    "Timbraje Solicitado",
    `<table><tr><td>Cantidad Solicitada</td><td>${cantidad}</td></tr><tr><td>Folio Inicial</td><td>${desde}</td></tr><tr><td>Folio Final</td><td>${desde + cantidad - 1}</td></tr></table>
<form method="POST" action="/cvc_cgi/dte/of_genera_folio">${hidden({
      NOMUSU: who.holder,
      CON_CREDITO: 0,
      CON_AJUSTE: 0,
      FOLIOS_DISP: unused(book),
      MAX_AUTOR,
      FOLIO_INI: desde,
      FOLIO_FIN: desde + cantidad - 1,
      DIA: at.getUTCDate(),
      MES: at.getUTCMonth() + 1,
      ANO: at.getUTCFullYear(),
      HORA: at.getUTCHours(),
      MINUTO: at.getUTCMinutes(),
      RUT_EMP: rut ?? "",
      DV_EMP: dv ?? "",
      COD_DOCTO: tipo,
      CANT_DOCTOS: cantidad,
    })}<input type="submit" name="ACEPTAR" value="Obtener Folios"></form>`,
  );
}

export async function generaFolio(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const tipo = Number(fields.get("COD_DOCTO"));
  const desde = Number(fields.get("FOLIO_INI"));
  const hasta = Number(fields.get("FOLIO_FIN"));
  const book = folioBook(ctx.state, ctx.ambiente, who.rut, tipo);
  // The same stamping posted again (its first answer lost): the SII names the range it already
  // authorized (devlas-cl/dte-sii CafSolicitor.js, "ya fue autorizado el rango desde N hasta M").
  const done = book.ranges.find((r) => r.desde === desde && r.hasta === hasta && r.mandatario === who.holder);
  if (done) return ALREADY_AUTHORIZED_PAGE(done);
  // A post without the page's hidden fields is refused like bad data (devlas CafSolicitor.js: the SII
  // refuses silently when fields it put on the page are missing); the field names are the page's.
  const complete = ["NOMUSU", "CON_CREDITO", "CON_AJUSTE", "CANT_DOCTOS"].every((name) => fields.has(name));
  if (!complete || !DOCUMENT_NAMES[tipo] || desde !== nextFolio(book) || hasta < desde || hasta - desde + 1 > MAX_AUTOR) {
    return page("ERROR", "<p>LOS DATOS DEL TIMBRAJE NO SON VALIDOS. INICIE NUEVAMENTE LA SOLICITUD.</p>");
  }
  const fecha = santiagoDate(new Date(ctx.now));
  const taxpayer = sandboxTaxpayer(who.rut);
  const range: FolioRange = { desde, hasta, fecha, mandatario: who.holder };
  range.caf = await buildCaf({ rut: who.rut, razonSocial: (taxpayer?.razon_social ?? "").toUpperCase(), tipo, desde, hasta, fecha });
  book.ranges.push(range);
  // Asked for by a test: the range is stamped, and the answer is lost or names it as already authorized.
  if (takeQuirk(ctx.state, "loseStamping")) return DROPPED();
  if (takeQuirk(ctx.state, "alreadyAuthorized")) return ALREADY_AUTHORIZED_PAGE(range);
  const [rut, dv] = who.rut.split("-");
  const [y, m, d] = fecha.split("-");
  return page(
    "Timbraje Autorizado",
    `<p>En Santiago, con fecha ${d}-${m}-${y}, el Servicio de Impuestos Internos ha autorizado la Solicitud de Timbraje Electrónico para el documento ${DOCUMENT_NAMES[tipo]}, con la numeración desde ${desde} hasta ${hasta}.</p>
<form method="POST" action="/cvc_cgi/dte/of_genera_archivo">${hidden({ RUT_EMP: rut ?? "", DV_EMP: dv ?? "", COD_DOCTO: tipo, FOLIO_INI: desde, FOLIO_FIN: hasta, FECHA: fecha })}<input type="submit" name="ACEPTAR" value="AQUI"></form>`,
  );
}

export async function generaArchivo(ctx: CgiContext): Promise<Response> {
  if (!ctx.c.req.header("referer")) return latin1Html("<h1>Error 500</h1>", 500);
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const tipo = Number(fields.get("COD_DOCTO"));
  const desde = Number(fields.get("FOLIO_INI"));
  const range = folioBook(ctx.state, ctx.ambiente, who.rut, tipo).ranges.find((r) => r.desde === desde && r.caf);
  if (!range?.caf) return page("ERROR", "<p>NO EXISTE EL TIMBRAJE SOLICITADO.</p>");
  return cafFile(ctx, who.rut, tipo, range);
}

// Annulment

export function anular1(ctx: CgiContext): Response {
  return companyTypeQuery(ctx, "ANULACION DE FOLIOS", "af_anular2");
}

export async function anular2(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const tipo = Number(fields.get("COD_DOCTO"));
  const [rut, dv] = who.rut.split("-");
  const book = folioBook(ctx.state, ctx.ambiente, who.rut, tipo);
  // Only the mandatario who stamped a range may annul it.
  const ranges = book.ranges.filter((r) => r.mandatario === who.holder);
  const forms = ranges
    .map((r) => {
      const [ano, mes, dia] = r.fecha.split("-");
      return `<form method="POST" action="/cvc_cgi/dte/af_anular3">${hidden({ RUT_EMP: rut ?? "", DV_EMP: dv ?? "", COD_DOCTO: tipo, FOLIO_INI: r.desde, FOLIO_FIN: r.hasta, CANT_DOCTOS: r.hasta - r.desde + 1, DIA: dia ?? "", MES: mes ?? "", ANO: ano ?? "" })}${r.desde} - ${r.hasta} <input type="submit" name="ACEPTAR" value="Anular"></form>`;
    })
    .join("\n");
  return page("ANULACION DE FOLIOS", forms || "<p>NO EXISTEN RANGOS DE FOLIOS PARA ANULAR.</p>");
}

export async function anular3(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const keep = ["RUT_EMP", "DV_EMP", "COD_DOCTO", "FOLIO_INI", "FOLIO_FIN"];
  const carried = Object.fromEntries(keep.map((name) => [name, fields.get(name) ?? ""]));
  return page(
    "CONFIRMACION DE ANULACION DE FOLIOS",
    `<form method="POST" action="/cvc_cgi/dte/af_anular">${hidden(carried)}Desde <input type="text" name="FOLIO_INI_A" value="${carried.FOLIO_INI}"> Hasta <input type="text" name="FOLIO_FIN_A" value="${carried.FOLIO_FIN}"> Motivo <input type="text" name="MOTIVO" value=""><input type="submit" name="ACEPTAR" value="Anular Folios"></form>`,
  );
}

export async function anular(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const tipo = Number(fields.get("COD_DOCTO"));
  const parent = { desde: Number(fields.get("FOLIO_INI")), hasta: Number(fields.get("FOLIO_FIN")) };
  const desde = Number(fields.get("FOLIO_INI_A"));
  const hasta = Number(fields.get("FOLIO_FIN_A"));
  const book = folioBook(ctx.state, ctx.ambiente, who.rut, tipo);
  const range = book.ranges.find((r) => r.desde === parent.desde && r.hasta === parent.hasta && r.mandatario === who.holder);
  if (!range || !(desde >= range.desde && hasta <= range.hasta && desde <= hasta)) {
    return page("ERROR", "<p>EL RANGO DE FOLIOS INDICADO NO CORRESPONDE A UN TIMBRAJE DEL CONTRIBUYENTE.</p>");
  }
  const folios = Array.from({ length: hasta - desde + 1 }, (_, i) => desde + i);
  if (folios.some((f) => book.used.has(f))) {
    return page("ERROR", "<p>NO SE PUEDE ANULAR: ALGUNOS FOLIOS DEL RANGO YA HAN SIDO RECEPCIONADOS POR EL SII.</p>");
  }
  if (folios.some((f) => book.annulled.has(f))) {
    return page("ERROR", "<p>NO SE PUEDE ANULAR: ALGUNOS FOLIOS DEL RANGO HAN SIDO ANULADOS ANTERIORMENTE.</p>");
  }
  for (const f of folios) book.annulled.add(f);
  return page(
    "ANULACION DE FOLIOS",
    `<p>El Servicio de Impuestos Internos ha autorizado la anulación de ${folios.length} folios del documento ${DOCUMENT_NAMES[tipo] ?? tipo}, desde el folio ${desde} hasta el folio ${hasta}.</p>`,
  );
}
