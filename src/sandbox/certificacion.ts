// The certification environment's process (docs/sii-services.md §12) as the SII's own pages run it, after
// devlas-cl/dte-sii (its portal code was captured from those pages; the fixtures under
// test/fixtures/sii/certificacion/ name each fact): maullin's CGIs for the application
// (pe_ingrut → pe_datos_empresa → pe_confirma), the test set (pe_generar → pe_generar1 →
// pe_generar2), the progress (pe_avance1 → pe_avance2) and the company's data (ad_empresa1 →
// ad_empresa2), written as the SII writes them: HTML 4.01 with upper-case tags, unquoted values,
// rows and cells never closed, accents as entities; and the routes of the boleta set's GWT-RPC
// application on www4 (certificacion-boleta.ts). Texts the sources do not show are
// inferred. A set moves from undeclared to EN REVISION when an envelope carrying all its cases
// arrives (the real SII waits for the track id to be declared at pe_avance3), and to REVISADO
// CONFORME once that envelope is processed without rejections.
import { santiagoDate } from "../lib/dates.ts";
import { encodeLatin1 } from "../lib/latin1.ts";
import { parseRut } from "../lib/rut.ts";
import { escapeXml } from "../lib/xml.ts";
import { boletaDownload, boletaFacade, NUMERO_BASE } from "./certificacion-boleta.ts";
import { authorize, type CgiContext, form } from "./cvc-cgi.ts";
import { envioEstado } from "./envios-steps.ts";
import { REOBTAIN_ROUTES } from "./folios-reobtain.ts";
import type { Certification, CertificationSet } from "./records.ts";
import type { SandboxState } from "./state.ts";
import { sandboxTaxpayer } from "./taxpayers.ts";

export type { Certification, CertificationSet, SetState } from "./records.ts";

const ENTITIES: Record<string, string> = { á: "aacute", é: "eacute", í: "iacute", ó: "oacute", ú: "uacute", ñ: "ntilde" };

/** Text as the SII's latin1 pages write it: markup escaped, accents as named entities. */
function html(text: string): string {
  return escapeXml(text).replace(/[áéíóúñ]/gi, (c) => {
    const name = ENTITIES[c.toLowerCase()] ?? "";
    return c === c.toLowerCase() ? `&${name};` : `&${name[0]?.toUpperCase()}${name.slice(1)};`;
  });
}

/**
 * A page of maullin's CGIs: HTML 4.01 written by hand, latin1. `unclosed` leaves out </BODY></HTML>,
 * which HTML 4.01 allows as it allows leaving out </TR> (inferred: no capture shows the SII's page
 * ends either way), so the gateway's check for pages cut short meets a whole page that does not
 * end in </html>.
 */
function legacyPage(title: string, body: string, unclosed = false): Response {
  const end = unclosed ? "" : "</BODY>\n</HTML>\n";
  const text = `<HTML>\n<HEAD>\n<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">\n<TITLE>${html(title)}</TITLE>\n</HEAD>\n<BODY BGCOLOR=#FFFFFF>\n${body}\n${end}`;
  return new Response(encodeLatin1(text), { headers: { "content-type": "text/html; charset=ISO-8859-1" } });
}

const font = (text: string) => `<FONT FACE=Arial SIZE=2>${text}</FONT>`;
const hiddenField = (name: string, value: string) => `<INPUT TYPE=HIDDEN NAME=${name} VALUE="${escapeXml(value)}">`;
const askCompany = (action: string, title: string, button: string) =>
  legacyPage(
    title,
    `<FORM NAME=form1 METHOD=POST ACTION="/cvc_cgi/dte/${action}">\n<TABLE>\n<TR><TD>${font("Rut Empresa")}<TD><INPUT TYPE=TEXT NAME=RUT_EMP SIZE=9 MAXLENGTH=8> - <INPUT TYPE=TEXT NAME=DV_EMP SIZE=1 MAXLENGTH=1>\n</TABLE>\n<INPUT TYPE=SUBMIT NAME=ACEPTAR VALUE=${button}>\n</FORM>`,
  );

// devlas-cl/dte-sii detects a company outside the process by "no está inscrito"; the rest is inferred.
const notInProcess = (rut: string, title: string) =>
  legacyPage(title, `<CENTER>${font(`La empresa ${rut} no est&aacute; inscrito en el proceso de Postulaci&oacute;n.`)}</CENTER>`);

function certificationOf(state: SandboxState, rut: string): Certification | undefined {
  return state.certifications.get(rut);
}

// ---------------------------------------------------------------------------------------------
// Application

/** pe_ingrut: the form that starts the application (button inferred). */
export function peIngrut(): Response {
  return askCompany("pe_datos_empresa", "Postulación Factura Electrónica", "Continuar");
}

/** The application form's document boxes (devlas-cl/dte-sii CafSolicitor.js CAMPOS_POSTULACION); labels inferred. */
const APPLICATION_BOXES: [string[], string][] = [
  [["ESFAC"], "Factura Electrónica"],
  [["FACT"], "Factura"],
  [["CONIVA"], "Con IVA"],
  [["NC"], "Nota de Crédito"],
  [["ND"], "Nota de Débito"],
  [["SET03"], "Guía de Despacho"],
  [["SET06"], "Factura Exenta"],
  [["SET72"], "Factura de Compra"],
  [["SET11"], "Documentos de Exportación"],
  [["SET84"], "Liquidación Factura"],
  [["ESBOL"], "Boleta Electrónica"],
  [["BOLELE", "BOLELEC"], "Boleta Electrónica Afecta"],
  [["BOLEXE", "BOLEXEN"], "Boleta Exenta Electrónica"],
];

/** pe_datos_empresa: the application form (fields of the SII's docs/validadte.js pe_confirma), or the refusal. */
export async function peDatosEmpresa(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const title = "Postulación Factura Electrónica";
  if (certificationOf(ctx.state, who.rut))
    return legacyPage(title, `<CENTER>${font(`LA EMPRESA ${who.rut} YA SE ENCUENTRA POSTULADA.`)}</CENTER>`);
  const [rut = "", dv = ""] = who.rut.split("-");
  const text = (label: string, name: string, size = 40) => `<TR><TD>${font(html(label))}<TD><INPUT TYPE=TEXT NAME=${name} SIZE=${size}>`;
  const boxes = APPLICATION_BOXES.map(
    ([names, label]) => `<TR><TD>${names.map((n) => `<INPUT TYPE=CHECKBOX NAME=${n} VALUE=S>`).join("")}<TD>${font(html(label))}`,
  );
  return legacyPage(
    title,
    [
      `<FORM NAME=form1 METHOD=POST ACTION="/cvc_cgi/dte/pe_confirma" onSubmit="return pe_confirma()">`,
      `<INPUT TYPE=HIDDEN NAME=RUT_EMP VALUE=${rut}>`,
      `<INPUT TYPE=HIDDEN NAME=DV_EMP VALUE=${dv}>`,
      "<INPUT TYPE=HIDDEN NAME=EXISTE_PROD VALUE=N>",
      "<INPUT TYPE=HIDDEN NAME=EXISTE_CERT VALUE=N>",
      "<TABLE BORDER=0>",
      `<TR><TD>${font("Raz&oacute;n Social")}<TD>${font(html(sandboxTaxpayer(who.rut)?.razon_social ?? ""))}`,
      `<TR><TD>${font("Rut Usuario Administrador")}<TD><INPUT TYPE=TEXT NAME=RUT_USU SIZE=9 MAXLENGTH=8> - <INPUT TYPE=TEXT NAME=DV_USU SIZE=1 MAXLENGTH=1>`,
      text("Mail contacto SII - Usuario Administrador", "MAIL_SUP"),
      text("Mail contacto SII - Empresa", "MAIL_SII"),
      text("Mail contacto entre Empresas", "MAIL_DTE"),
      text("URL Empresa", "URL"),
      text("Nombre del Software", "NOM_SW"),
      "</TABLE>",
      "<TABLE BORDER=0>",
      ...boxes,
      "</TABLE>",
      `<INPUT TYPE=SUBMIT NAME=ACEPTAR VALUE="Confirmar Postulaci&oacute;n">`,
      "</FORM>",
    ].join("\n"),
  );
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/**
 * pe_confirma: records the application after the checks the SII's script makes (docs/validadte.js
 * pe_confirma: the administrator's RUT, the three e-mails, the software's name; its messages).
 */
export async function peConfirma(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const title = "Postulación Factura Electrónica";
  const refuse = (message: string) => legacyPage(title, `<CENTER>${font(html(message))}</CENTER>`);
  const value = (name: string) => (fields.get(name) ?? "").trim();
  if (!parseRut(`${value("RUT_USU")}-${value("DV_USU")}`).ok) return refuse("El Rut del Usuario Administrador es inválido.");
  if (!EMAIL.test(value("MAIL_SUP"))) return refuse("Debe ingresar el Mail de contacto entre el SII y el Usuario-Administrador.");
  if (!EMAIL.test(value("MAIL_SII"))) return refuse("Debe ingresar el Mail de contacto entre el SII y la empresa.");
  if (!EMAIL.test(value("MAIL_DTE"))) return refuse("Debe ingresar el Mail de contacto entre empresas.");
  if (!value("NOM_SW")) return refuse("Debe ingresar el nombre del software usado por la empresa.");
  const documentos = APPLICATION_BOXES.flatMap(([names]) => names).filter((name) => fields.get(name) === "S");
  if (!documentos.length) return refuse("Debe seleccionar al menos un documento a certificar.");
  if (!certificationOf(ctx.state, who.rut)) {
    ctx.state.certifications.set(who.rut, {
      postulada: ctx.now,
      email: value("MAIL_SII"),
      emailIntercambio: value("MAIL_DTE"),
      software: value("NOM_SW"),
      documentos,
      sets: [],
    });
  }
  // Inferred: the SII's confirmation text is not in the public sources.
  return legacyPage(title, `<CENTER>${font(`SU POSTULACION HA SIDO INGRESADA. EMPRESA ${who.rut}.`)}</CENTER>`);
}

// ---------------------------------------------------------------------------------------------
// Test set

function setText(sets: CertificationSet[]): string {
  const [basico, ...books] = sets;
  const n = basico?.numero ?? "";
  const bookText: Record<string, string> = {
    "LIBRO DE VENTAS": "CONSTRUYA EL LIBRO DE VENTAS CON LOS DOCUMENTOS CON QUE GENERO EL SET BASICO.",
    "LIBRO DE COMPRAS": "CONSTRUYA EL LIBRO DE COMPRAS CON LOS DOCUMENTOS INDICADOS EN ESTE SET.",
  };
  return [
    "INDICACIONES GENERALES:",
    "",
    "Se debe adjuntar ejemplar tributario y cedible de los documentos de este set.",
    "",
    `SET BASICO - NUMERO DE ATENCION: ${n}`,
    "",
    `CASO ${n}-1`,
    "==============",
    "DOCUMENTO\tFACTURA ELECTRONICA",
    "",
    "ITEM\t\t\tCANTIDAD\tPRECIO UNITARIO",
    "Tornillo AFECTO\t\t    120\t\t    350",
    "Tuerca AFECTO\t\t     40\t\t    910",
    "",
    `CASO ${n}-2`,
    "==============",
    "DOCUMENTO\tFACTURA ELECTRONICA",
    "",
    "ITEM\t\t\tCANTIDAD\tPRECIO UNITARIO\t\tDESCUENTO ITEM",
    "Taladro AFECTO\t\t      6\t\t  41990\t\t\t      5%",
    "",
    `CASO ${n}-3`,
    "==============",
    "DOCUMENTO\tFACTURA ELECTRONICA",
    "",
    "ITEM\t\t\tCANTIDAD\tPRECIO UNITARIO",
    "Martillo AFECTO\t\t     12\t\t   7490",
    "ASESORIA SERVICIO EXENTO\t      1\t\t  25000",
    "",
    "DESCUENTO GLOBAL ITEMES AFECTOS\t\t      4%",
    "",
    `CASO ${n}-4`,
    "==============",
    "DOCUMENTO\t\tNOTA DE CREDITO ELECTRONICA",
    `REFERENCIA\t\tFACTURA ELECTRONICA CORRESPONDIENTE A CASO ${n}-1`,
    "RAZON REFERENCIA\tCORRIGE GIRO DEL RECEPTOR",
    "",
    `CASO ${n}-5`,
    "==============",
    "DOCUMENTO\t\tNOTA DE CREDITO ELECTRONICA",
    `REFERENCIA\t\tFACTURA ELECTRONICA CORRESPONDIENTE A CASO ${n}-2`,
    "RAZON REFERENCIA\tDEVOLUCION DE MERCADERIAS",
    "",
    "ITEM\t\t\tCANTIDAD",
    "Taladro AFECTO\t\t      2",
    "",
    `CASO ${n}-6`,
    "==============",
    "DOCUMENTO\t\tNOTA DE DEBITO ELECTRONICA",
    `REFERENCIA\t\tNOTA DE CREDITO ELECTRONICA CORRESPONDIENTE A CASO ${n}-4`,
    "RAZON REFERENCIA\tANULA NOTA DE CREDITO ELECTRONICA",
    ...books.flatMap((book) => [
      "-".repeat(80),
      `SET ${book.nombre} - NUMERO DE ATENCION: ${book.numero}`,
      "",
      bookText[book.nombre] ?? "",
    ]),
    "",
  ].join("\n");
}

/** The optional sets this sandbox generates (devlas-cl/dte-sii cert/CertRunner.js names SET07/SET08 the sales and purchase books). */
const OPTIONAL_SETS: [string, string][] = [
  ["SET07", "LIBRO DE VENTAS"],
  ["SET08", "LIBRO DE COMPRAS"],
];

/** pe_generar: asks for the company; pe_generar1 takes CODIGO 8 (devlas-cl/dte-sii SiiCertificacion.js). */
export function peGenerar(): Response {
  return legacyPage(
    "Generación de Set de Pruebas",
    `<FORM NAME=form1 METHOD=POST ACTION="/cvc_cgi/dte/pe_generar1">\n<TABLE>\n<TR><TD>${font("Rut Empresa")}<TD><INPUT TYPE=TEXT NAME=RUT_EMP SIZE=9 MAXLENGTH=8> - <INPUT TYPE=TEXT NAME=DV_EMP SIZE=1 MAXLENGTH=1>\n</TABLE>\n<INPUT TYPE=HIDDEN NAME=CODIGO VALUE=8>\n<INPUT TYPE=SUBMIT NAME=ACEPTAR VALUE="Confirmar Empresa">\n</FORM>`,
  );
}

/**
 * pe_generar1: the sets page (devlas-cl/dte-sii SiiCertificacion.js): the sets obtained, the
 * optional sets as SETnn checkboxes, hidden AUTORIZADA and TOTAL, posted to pe_generar2.
 */
export async function peGenerar1(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const title = "Generación de Set de Pruebas";
  // Inferred: what other codes show is not public; only CODIGO 8 leads to the sets page.
  if (fields.get("CODIGO") !== "8") return legacyPage(title, `<CENTER>${font("Opci&oacute;n no v&aacute;lida.")}</CENTER>`);
  const certification = certificationOf(ctx.state, who.rut);
  if (!certification) return notInProcess(who.rut, title);
  const [rut = "", dv = ""] = who.rut.split("-");
  const obtained = certification.sets.map((set) => `<TR><TD>${font(set.nombre)}</TD><TD>${font(set.numero)}</TD></TR>`);
  return legacyPage(
    title,
    [
      `<CENTER><FONT FACE=Arial SIZE=3><B>GENERACION DE SET DE PRUEBAS</B></FONT></CENTER>`,
      `<FORM NAME=form1 METHOD=POST ACTION="/cvc_cgi/dte/pe_generar2" onSubmit="return validaenvio()">`,
      "<TABLE BORDER=0 WIDTH=600>",
      `<TR><TD>${font("<B>Set Obtenido</B>")}</TD><TD>${font("<B>N&uacute;mero de Atenci&oacute;n</B>")}</TD></TR>`,
      ...obtained,
      "</TABLE>",
      `${font("Seleccione los set adicionales que desea obtener:")}<BR>`,
      ...OPTIONAL_SETS.map(([id, name]) => `<INPUT NAME=${id} TYPE=CHECKBOX VALUE=S> ${name}<BR>`),
      hiddenField("RUT_EMP", rut),
      hiddenField("DV_EMP", dv),
      hiddenField("AUTORIZADA", "S"),
      hiddenField("TOTAL", "15"),
      `<INPUT TYPE=SUBMIT NAME=ACEPTAR VALUE="Bajar Nuevo Set">`,
      "</FORM>",
    ].join("\n"),
  );
}

/** pe_generar2: a new test set as a text file, with the basic set (SET01) and the optional sets checked. */
export async function peGenerar2(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const title = "Generación de Set de Pruebas";
  const certification = certificationOf(ctx.state, who.rut);
  if (!certification) return notInProcess(who.rut, title);
  // devlas-cl/dte-sii SiiCertificacion.js posts AUTORIZADA and SET01 always; without them no set (inferred refusal).
  if (fields.get("AUTORIZADA") !== "S" || fields.get("SET01") !== "S")
    return legacyPage(
      title,
      `<CENTER>${font("Debe seleccionar al menos un set, de lo contrario, no podr&aacute; efectuar esta operaci&oacute;n.")}</CENTER>`,
    );
  const base = NUMERO_BASE + ctx.state.certifications.size * 10 + certification.sets.length;
  const number = (i: number) => String(base + i);
  const chosen = OPTIONAL_SETS.filter(([id]) => fields.get(id) === "S");
  certification.sets = [
    { nombre: "SET BASICO", numero: number(0), casos: [1, 2, 3, 4, 5, 6].map((c) => `${number(0)}-${c}`), estado: "POR REALIZAR" },
    ...chosen.map(([, nombre], i): CertificationSet => ({ nombre, numero: number(i + 1), casos: [], estado: "POR REALIZAR" })),
  ];
  return new Response(encodeLatin1(setText(certification.sets)), {
    headers: {
      "content-type": "text/plain; charset=ISO-8859-1",
      "content-disposition": `attachment; filename="SIISetDePruebas${number(0)}.txt"`,
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Progress

/**
 * A set's state: an envelope whose documents reference every case of the set puts it in review;
 * once that envelope is processed it is accepted, or rejected with the SII's reason.
 */
function setState(state: SandboxState, set: CertificationSet, now: number): Pick<CertificationSet, "estado" | "motivo" | "trackId"> {
  if (!set.trackId) return { estado: set.estado };
  const envio = state.envios.get(set.trackId);
  if (!envio) return { estado: set.estado };
  const estado = envioEstado(envio, now);
  if (estado !== "EPR" && !envio.rejection) return { estado: "EN REVISION", trackId: set.trackId };
  const reasons = envio.rejection
    ? [`envio rechazado (${envio.rejection})`]
    : envio.documents.filter((d) => d.estado === "RCH").map((d) => `${d.tipo} ${d.folio}: ${d.motivo ?? "rechazado"}`);
  return reasons.length
    ? { estado: "RECHAZADO", motivo: reasons.join("; "), trackId: set.trackId }
    : { estado: "REVISADO CONFORME", trackId: set.trackId };
}

/** Called for every envelope received in certification: the sets whose cases it carries are in review. */
export function noteCertificationEnvelope(state: SandboxState, company: string, trackId: string, cases: string[]): void {
  for (const set of certificationOf(state, company)?.sets ?? []) {
    if (set.casos.length && set.casos.every((caso) => cases.includes(caso))) set.trackId = trackId;
  }
}

/** pe_avance1: asks for the company (devlas-cl/dte-sii SiiCertificacion.js posts it to pe_avance2 with "Continuar"). */
export function peAvance1(): Response {
  return askCompany("pe_avance2", "Declaración de Avance", "Continuar");
}

/**
 * pe_avance2: one row per set; a set in review or reviewed shows its state in <b>…</b>, a set
 * still to declare its NUM_ENVn/FEC_ENVn inputs and hidden SETn/ESTn (S01), with TOTREG and
 * PASO, posted to pe_avance3 (devlas-cl/dte-sii SiiCertificacion.js). The attention-number,
 * track-id and remarks cells are inferred.
 */
export async function peAvance2(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const title = "Declaración de Avance";
  const certification = certificationOf(ctx.state, who.rut);
  if (!certification) return notInProcess(who.rut, title);
  let pending = 0;
  const rows = certification.sets.map((set) => {
    const current = setState(ctx.state, set, ctx.now);
    if (current.estado === "POR REALIZAR") {
      pending++;
      const inputs = [
        `<INPUT TYPE=TEXT NAME="NUM_ENV${pending}" SIZE=12 VALUE="">`,
        `<INPUT TYPE=TEXT NAME="FEC_ENV${pending}" SIZE=10 VALUE="">`,
        `<INPUT TYPE=HIDDEN NAME="SET${pending}" VALUE="${set.numero}">`,
        `<INPUT TYPE=HIDDEN NAME="EST${pending}" VALUE="S01">`,
      ].join("\n");
      return `<TR><TD>${font(set.nombre)}</TD><TD>${font(inputs)}</TD><TD>${font(set.numero)}</TD></TR>`;
    }
    return `<TR><TD>${font(set.nombre)}</TD><TD>${font(`<b>${current.estado}</b>`)}</TD><TD>${font(set.numero)}</TD><TD>${font(current.trackId ?? "&nbsp;")}</TD><TD>${font(current.motivo ? html(current.motivo) : "&nbsp;")}</TD></TR>`;
  });
  const [rut = "", dv = ""] = who.rut.split("-");
  return legacyPage(
    title,
    [
      `<FORM NAME=form1 METHOD=POST ACTION="/cvc_cgi/dte/pe_avance3">`,
      "<TABLE BORDER=1 WIDTH=700>",
      `<TR><TD>${font("<B>Set / Libro</B>")}</TD><TD>${font("<B>Estado</B>")}</TD><TD>${font("<B>N&uacute;mero de Atenci&oacute;n</B>")}</TD><TD>${font("<B>N&uacute;mero de Env&iacute;o</B>")}</TD><TD>${font("<B>Observaciones</B>")}</TD></TR>`,
      ...rows,
      "</TABLE>",
      hiddenField("RUT_EMP", rut),
      hiddenField("DV_EMP", dv),
      hiddenField("TOTREG", String(pending)),
      hiddenField("PASO", "P01"),
      `<INPUT TYPE=SUBMIT NAME=ACEPTAR VALUE="Confirmar Revisi&oacute;n">`,
      `<INPUT TYPE=BUTTON NAME=AVANZAR VALUE="Avanzar Siguiente Paso" onClick="avanzar()">`,
      "</FORM>",
    ].join("\n"),
  );
}

// ---------------------------------------------------------------------------------------------
// Company data

/** ad_empresa1: asks for the company (devlas-cl/dte-sii SiiPortalAuth.js GETs it before ad_empresa2). */
export function adEmpresa1(): Response {
  return askCompany("ad_empresa2", "Actualización de Datos de la Empresa", "Ingresar");
}

/**
 * ad_empresa2: the company's rows, never closed (devlas-cl/dte-sii SiiPortalAuth.js: "HTML 4.01
 * no exige tags </TR> de cierre"), labels from that source and a public Python portal client;
 * resolution 0 and the application's date while certifying. The page itself is left unclosed
 * (no </BODY></HTML>; inferred, see legacyPage).
 */
export async function adEmpresa2(ctx: CgiContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const certification = certificationOf(ctx.state, who.rut);
  const row = (label: string, value: string) => `<TR><TD>${font(label)}</TD><TD>${font(`&nbsp;${html(value)}`)}</TD>`;
  const rows = [row("Rut", who.rut), row("Raz&oacute;n Social", sandboxTaxpayer(who.rut)?.razon_social ?? "")];
  if (certification) {
    const [year, month, day] = santiagoDate(new Date(certification.postulada)).split("-");
    rows.push(
      row("Resoluci&oacute;n", "0"),
      row("Fecha Resoluci&oacute;n", `${day}-${month}-${year}`),
      row("Fecha Autorizaci&oacute;n", ""),
      row("Nombre del Software (*)", certification.software),
      row("Mail Contacto", certification.email),
    );
  }
  return legacyPage(
    "Actualización de Datos de la Empresa",
    `<CENTER><FONT FACE=Arial SIZE=3><B>DATOS DE LA EMPRESA</B></FONT></CENTER>\n<TABLE BORDER=0 WIDTH=600>\n${rows.join("\n")}\n</TABLE>`,
    true,
  );
}

type Handler = (ctx: CgiContext) => Response | Promise<Response>;

/** The routes of the certification process: method, path (with the host), the SII service they count as, handler. */
export const CERTIFICATION_ROUTES: { method: "get" | "post"; path: string; service: string; handler: Handler }[] = [
  ["get", "pe_ingrut", "certification_apply", peIngrut],
  ["post", "pe_datos_empresa", "certification_apply", peDatosEmpresa],
  ["post", "pe_confirma", "certification_apply", peConfirma],
  ["get", "pe_generar", "certification_set", peGenerar],
  ["post", "pe_generar1", "certification_set", peGenerar1],
  ["post", "pe_generar2", "certification_set", peGenerar2],
  ["get", "pe_avance1", "certification_progress", peAvance1],
  ["post", "pe_avance2", "certification_progress", peAvance2],
  ["get", "ad_empresa1", "certification_data", adEmpresa1],
  ["post", "ad_empresa2", "certification_data", adEmpresa2],
]
  .map(([method, page, service, handler]) => ({
    method: method as "get" | "post",
    // maullin only: the process exists in the certification environment.
    path: `/:host{maullin\\.sii\\.cl}/cvc_cgi/dte/${page as string}`,
    service: service as string,
    handler: handler as Handler,
  }))
  .concat([
    {
      method: "post",
      path: "/:host{www4\\.sii\\.cl}/certBolElectDteInternet/facade",
      service: "certification_boleta_set",
      handler: boletaFacade,
    },
    {
      method: "get",
      path: "/:host{www4\\.sii\\.cl}/certBolElectDteInternet/DownloadFileServlet",
      service: "certification_boleta_set",
      handler: boletaDownload,
    },
  ])
  // The CGIs of re-obtaining a stamped CAF (folios-reobtain.ts) ride on this list, the one list of
  // CGI routes the sandbox's app registers.
  .concat(REOBTAIN_ROUTES);
