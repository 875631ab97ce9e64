// palena/maullin /cvc_cgi/dte/rf_*: re-obtaining the CAF file of a range already stamped
// (docs/sii-services.md §3.2), and the stamping's rough answers the gateway must survive.
//
// The pages restate sergiokml/PortalFacturas `Cve.Impuestos/Services/Templates/Tabla
// reobtenciones.html` (a table Fecha / Cantidad / Folio Inicial / Folio final / Reobtener, each
// range in its own form `frm<desde>` posting PAGINA, CANT_DOCTOS, RUT_EMP, DV_EMP, DIA, ANO, MES,
// COD_DOCTO, FOLIO_INI, FOLIO_FIN to rf_reobtencion3_folios) and `Confirma reobtencion.html` (form1
// to rf_genera_folio with NOMBRE_DOCTO, CANT_DOCTOS and the date, ACEPTAR "Solicitar Folios");
// devlas-cl/dte-sii CafSolicitor.js: rf_genera_folio answers the authorization with a form to
// rf_genera_archivo (ACEPTAR "AQUI"), and an annulled range's confirmation says "ha sido anulado".
import { authorize, type CgiContext, companyTypeQuery, form, hidden, page } from "./cvc-cgi.ts";
import { DOCUMENT_NAMES, type FolioRange, folioBook } from "./folios.ts";
import { cafFile } from "./folios-answers.ts";
import { sandboxTaxpayer } from "./taxpayers.ts";

const dmy = (fecha: string) => fecha.split("-").reverse().join("-");

export function reobtencion1(ctx: CgiContext): Response {
  return companyTypeQuery(ctx, "REOBTENCION DE FOLIOS", "rf_reobtencion2_folios");
}

export async function reobtencion2(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const tipo = Number(fields.get("COD_DOCTO"));
  const [rut = "", dv = ""] = who.rut.split("-");
  // Newest first, as the saved page lists them.
  const ranges = [...folioBook(ctx.state, ctx.ambiente, who.rut, tipo).ranges].reverse();
  const rows = ranges.map((r) => {
    const [ano, mes, dia] = r.fecha.split("-");
    const cantidad = r.hasta - r.desde + 1;
    const fields = {
      PAGINA: 1,
      CANT_DOCTOS: cantidad,
      RUT_EMP: rut,
      DV_EMP: dv,
      DIA: dia ?? "",
      ANO: ano ?? "",
      MES: mes ?? "",
      COD_DOCTO: tipo,
    };
    return `<tr><td align="right">${dmy(r.fecha)}</td><td align="right">${cantidad}</td><td align="right">${r.desde}</td><td align="right">${r.hasta}</td>
<td style="display:none"><form name="frm${r.desde}" method="post" action="/cvc_cgi/dte/rf_reobtencion3_folios">${hidden({ ...fields, FOLIO_INI: r.desde, FOLIO_FIN: r.hasta })}</form></td>
<td align="center"><input type="button" name="MOD" value="Reobtener" onClick="frm${r.desde}.submit();"></td></tr>`;
  });
  const name = sandboxTaxpayer(who.rut)?.razon_social.toUpperCase() ?? who.rut;
  return page(
    "REOBTENCION DE FOLIOS",
    `<p>El contribuyente <b>${name}</b> Rut <b>${who.rut}</b>, registra la siguiente informaci&oacute;n para<b> ${DOCUMENT_NAMES[tipo] ?? tipo}</b>:</p>
<table border="1"><tr><td>Fecha</td><td>Cantidad</td><td>Folio Inicial</td><td>Folio final</td><td>Reobtener</td></tr>
${rows.join("\n")}</table>`,
  );
}

/** The stamped range a re-obtaining form names, if the taxpayer has it. */
async function rangeOfForm(
  ctx: CgiContext,
): Promise<Response | { rut: string; tipo: number; range: FolioRange; fields: Map<string, string> }> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const tipo = Number(fields.get("COD_DOCTO"));
  const [desde, hasta] = [Number(fields.get("FOLIO_INI")), Number(fields.get("FOLIO_FIN"))];
  const range = folioBook(ctx.state, ctx.ambiente, who.rut, tipo).ranges.find((r) => r.desde === desde && r.hasta === hasta);
  if (!range) return page("ERROR", "<p>EL RANGO DE FOLIOS SOLICITADO NO HA SIDO AUTORIZADO AL CONTRIBUYENTE.</p>");
  return { rut: who.rut, tipo, range, fields };
}

export async function reobtencion3(ctx: CgiContext): Promise<Response> {
  const found = await rangeOfForm(ctx);
  if (found instanceof Response) return found;
  const { rut, tipo, range } = found;
  const book = folioBook(ctx.state, ctx.ambiente, rut, tipo);
  const folios = Array.from({ length: range.hasta - range.desde + 1 }, (_, i) => range.desde + i);
  if (folios.every((f) => book.annulled.has(f))) {
    return page(
      "REOBTENCION DE FOLIOS",
      "<p>El rango de folios que desea reobtener ha sido anulado completamente. Los documentos que el Servicio reciba con dichos folios serán rechazados.</p>",
    );
  }
  const [ano, mes, dia] = range.fecha.split("-");
  const [rutBody = "", dv = ""] = rut.split("-");
  return page(
    "REOBTENCION DE FOLIOS",
    `<table border="1"><tr><td>Fecha Timbraje</td><td>${dmy(range.fecha)}</td></tr><tr><td>Documento</td><td>${DOCUMENT_NAMES[tipo] ?? tipo}</td></tr><tr><td>Rut del Mandatario</td><td>${range.mandatario}</td></tr><tr><td>Folio Inicial</td><td>${range.desde}</td></tr><tr><td>Folio Final</td><td>${range.hasta}</td></tr></table>
<form name="form1" method="post" action="/cvc_cgi/dte/rf_genera_folio">${hidden({ RUT_EMP: rutBody, DV_EMP: dv, COD_DOCTO: tipo, NOMBRE_DOCTO: DOCUMENT_NAMES[tipo] ?? "", FOLIO_INI: range.desde, FOLIO_FIN: range.hasta, CANT_DOCTOS: range.hasta - range.desde + 1, DIA: dia ?? "", MES: mes ?? "", ANO: ano ?? "" })}
<input name="VOLVER" type="button" value="Volver"><input name="ACEPTAR" type="submit" value="Solicitar Folios"></form>`,
  );
}

export async function rfGeneraFolio(ctx: CgiContext): Promise<Response> {
  const found = await rangeOfForm(ctx);
  if (found instanceof Response) return found;
  const { rut, tipo, range } = found;
  const [rutBody = "", dv = ""] = rut.split("-");
  return page(
    "SOLICITUD TIMBRAJE ELECTRONICO",
    `<p>En Santiago, con fecha ${dmy(range.fecha)}, el Servicio de Impuestos Internos ha autorizado la Solicitud de Timbraje de Documentos Electrónicos para el documento ${DOCUMENT_NAMES[tipo] ?? tipo}, con la numeración desde ${range.desde} hasta ${range.hasta}.</p>
<form name="form1" method="post" action="/cvc_cgi/dte/rf_genera_archivo">${hidden({ RUT_EMP: rutBody, DV_EMP: dv, COD_DOCTO: tipo, FOLIO_INI: range.desde, FOLIO_FIN: range.hasta, FECHA: range.fecha })}<input name="ACEPTAR" type="submit" value="AQUI"></form>`,
  );
}

export async function rfGeneraArchivo(ctx: CgiContext): Promise<Response> {
  if (!ctx.c.req.header("referer")) return page("ERROR", "<h1>Error 500</h1>");
  const found = await rangeOfForm(ctx);
  if (found instanceof Response) return found;
  return cafFile(ctx, found.rut, found.tipo, found.range);
}

/** The routes of re-obtaining, on both hosts, counted as one SII service. */
export const REOBTAIN_ROUTES = (
  [
    ["get", "rf_reobtencion1_folios", reobtencion1],
    ["post", "rf_reobtencion2_folios", reobtencion2],
    ["post", "rf_reobtencion3_folios", reobtencion3],
    ["post", "rf_genera_folio", rfGeneraFolio],
    ["post", "rf_genera_archivo", rfGeneraArchivo],
  ] as const
).map(([method, name, handler]) => ({
  method,
  path: `/:host{palena\\.sii\\.cl|maullin\\.sii\\.cl}/cvc_cgi/dte/${name}`,
  service: "caf_reobtain",
  handler: handler as (ctx: CgiContext) => Response | Promise<Response>,
}));
