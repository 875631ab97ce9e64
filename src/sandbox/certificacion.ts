// The certification environment's process (sii-upstream §12) on maullin's CGIs: the application
// (pe_ingrut → pe_datos_empresa → pe_confirma), the test set (pe_generar → pe_generar1, a text
// file), the progress page (pe_avance1) and the company's certification data (ad_empresa2). A set
// moves from POR REALIZAR to EN REVISION when an envelope carrying all its cases arrives, and to
// REVISADO CONFORME once that envelope is processed without rejections.
// The boleta set comes from a browser-only application at the SII; the sandbox offers a plain
// stand-in for it (see boletaSet).
import { encodeLatin1 } from "../lib/latin1.ts";
import { escapeXml } from "../lib/xml.ts";
import { envioEstado } from "./envios.ts";
import { authorize, type FolioContext, form, hidden, page } from "./folios.ts";
import type { SandboxState } from "./state.ts";
import { sandboxTaxpayer } from "./taxpayers.ts";

export type SetState = "POR REALIZAR" | "EN REVISION" | "REVISADO CONFORME" | "RECHAZADO";

export interface CertificationSet {
  nombre: string;
  numero: string;
  /** Case numbers (`4943173-1`…) an envelope must carry, in their Referencia (RazonRef `CASO …`). */
  casos: string[];
  estado: SetState;
  /** The envelope declared for this set, and why it was rejected. */
  trackId?: string;
  motivo?: string;
}

export interface Certification {
  postulada: number;
  email: string;
  software: string;
  sets: CertificationSet[];
  boletas?: CertificationSet;
}

const NUMERO_BASE = 4_900_000;

function setText(sets: CertificationSet[], number: (i: number) => string): string {
  const [basico, ventas, compras] = sets;
  const n = basico?.numero ?? number(0);
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
    "-".repeat(80),
    `SET LIBRO DE VENTAS - NUMERO DE ATENCION: ${ventas?.numero ?? number(1)}`,
    "",
    "CONSTRUYA EL LIBRO DE VENTAS CON LOS DOCUMENTOS CON QUE GENERO EL SET BASICO.",
    "-".repeat(80),
    `SET LIBRO DE COMPRAS - NUMERO DE ATENCION: ${compras?.numero ?? number(2)}`,
    "",
    "CONSTRUYA EL LIBRO DE COMPRAS CON LOS DOCUMENTOS INDICADOS EN ESTE SET.",
    "",
  ].join("\n");
}

function certificationOf(state: SandboxState, rut: string): Certification | undefined {
  return state.certifications.get(rut);
}

/** pe_ingrut: the form that starts the application. */
export function peIngrut(): Response {
  return page(
    "POSTULACION A FACTURACION ELECTRONICA",
    `<form method="POST" action="/cvc_cgi/dte/pe_datos_empresa">RUT <input type="text" name="RUT_EMP"> - <input type="text" name="DV_EMP"><input type="submit" name="ACEPTAR" value="Continuar"></form>`,
  );
}

/** pe_datos_empresa: the company's data and the documents to certify, or the refusal. */
export async function peDatosEmpresa(ctx: FolioContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  if (certificationOf(ctx.state, who.rut)) return page("POSTULACION", `<p>LA EMPRESA ${who.rut} YA SE ENCUENTRA POSTULADA.</p>`);
  const [rut, dv] = who.rut.split("-");
  return page(
    "POSTULACION - DATOS DE LA EMPRESA",
    `<form method="POST" action="/cvc_cgi/dte/pe_confirma">${hidden({ RUT_EMP: rut ?? "", DV_EMP: dv ?? "" })}` +
      `Razon Social: ${escapeXml(sandboxTaxpayer(who.rut)?.razon_social ?? "")}<br>` +
      `Correo de contacto <input type="text" name="EMAIL" value=""><br>Software <input type="text" name="SOFTWARE" value=""><br>` +
      `<input type="checkbox" name="FACT" value="S"> Factura Electronica <input type="checkbox" name="NC" value="S"> Nota de Credito <input type="checkbox" name="ND" value="S"> Nota de Debito` +
      `<input type="submit" name="ACEPTAR" value="Confirmar Datos"></form>`,
  );
}

/** pe_confirma: records the application. */
export async function peConfirma(ctx: FolioContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const email = fields.get("EMAIL") ?? "";
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) return page("POSTULACION", "<p>DEBE INGRESAR UN CORREO ELECTRONICO VALIDO.</p>");
  if (!certificationOf(ctx.state, who.rut)) {
    ctx.state.certifications.set(who.rut, { postulada: ctx.now, email, software: fields.get("SOFTWARE") ?? "", sets: [] });
  }
  return page("POSTULACION", `<p>SU POSTULACION HA SIDO INGRESADA. EMPRESA ${who.rut}.</p>`);
}

export function peGenerar(): Response {
  return page(
    "GENERACION DE NUEVO SET DE PRUEBAS",
    `<form method="POST" action="/cvc_cgi/dte/pe_generar1">RUT <input type="text" name="RUT_EMP"> - <input type="text" name="DV_EMP"><input type="hidden" name="CODIGO" value="2"><input type="submit" name="ACEPTAR" value="Confirmar Empresa"></form>`,
  );
}

/** pe_generar1: a new test set (text file) for a company in the process. */
export async function peGenerar1(ctx: FolioContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const certification = certificationOf(ctx.state, who.rut);
  if (!certification) return page("ERROR", "<p>No ha sido posible generar el set de pruebas: la empresa no se encuentra postulada.</p>");
  const base = NUMERO_BASE + ctx.state.certifications.size * 10 + certification.sets.length;
  const number = (i: number) => String(base + i);
  certification.sets = [
    { nombre: "SET BASICO", numero: number(0), casos: [1, 2, 3, 4, 5, 6].map((c) => `${number(0)}-${c}`), estado: "POR REALIZAR" },
    { nombre: "SET LIBRO DE VENTAS", numero: number(1), casos: [], estado: "POR REALIZAR" },
    { nombre: "SET LIBRO DE COMPRAS", numero: number(2), casos: [], estado: "POR REALIZAR" },
  ];
  return new Response(encodeLatin1(setText(certification.sets, number)), {
    headers: {
      "content-type": "text/plain; charset=ISO-8859-1",
      "content-disposition": `attachment; filename="SIISetDePruebas${number(0)}.txt"`,
    },
  });
}

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
  const certification = certificationOf(state, company);
  for (const set of [...(certification?.sets ?? []), ...(certification?.boletas ? [certification.boletas] : [])]) {
    if (set.casos.length && set.casos.every((caso) => cases.includes(caso))) set.trackId = trackId;
  }
}

/** pe_avance1: each set of the company with its state. */
export async function peAvance1(ctx: FolioContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const certification = certificationOf(ctx.state, who.rut);
  if (!certification) return page("AVANCE", `<p>LA EMPRESA ${who.rut} NO SE ENCUENTRA POSTULADA.</p>`);
  const sets = [...certification.sets, ...(certification.boletas ? [certification.boletas] : [])];
  const rows = sets
    .map((set) => {
      const current = setState(ctx.state, set, ctx.now);
      return `<tr><td>${set.nombre}</td><td>${set.numero}</td><td>${current.estado}</td><td>${current.trackId ?? ""}</td><td>${escapeXml(current.motivo ?? "")}</td></tr>`;
    })
    .join("");
  return page(
    "AVANCE DEL PROCESO DE CERTIFICACION",
    `<table><tr><th>SET</th><th>NUMERO ATENCION</th><th>ESTADO</th><th>TRACKID</th><th>OBSERVACIONES</th></tr>${rows}</table>`,
  );
}

/** ad_empresa2: the company as the certification environment has it. */
export async function adEmpresa2(ctx: FolioContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const certification = certificationOf(ctx.state, who.rut);
  const taxpayer = sandboxTaxpayer(who.rut);
  const cell = (label: string, value: string) => `<tr><th>${label}</th><td>${escapeXml(value)}</td></tr>`;
  return page(
    "DATOS DE LA EMPRESA",
    `<table>${cell("RUT", who.rut)}${cell("Razon Social", taxpayer?.razon_social ?? "")}` +
      `${cell("Numero Resolucion", "0")}${cell("Fecha Resolucion", certification ? new Date(certification.postulada).toISOString().slice(0, 10) : "")}` +
      `${cell("Correo Contacto SII", certification?.email ?? "")}${cell("Correo Intercambio", taxpayer?.ficha.email ?? "")}` +
      `${cell("Software", certification?.software ?? "")}${cell("Estado", certification ? "EN CERTIFICACION" : "NO POSTULADA")}</table>`,
  );
}

/**
 * The boleta set. At the SII it comes from a browser-only application (certBolElectDteInternet);
 * this sandbox stand-in answers the same set as a text file for a company in the process.
 */
export async function boletaSet(ctx: FolioContext): Promise<Response> {
  const fields = await form(ctx.c);
  const who = authorize(ctx, fields);
  if (who instanceof Response) return who;
  const certification = certificationOf(ctx.state, who.rut);
  if (!certification) return page("ERROR", "<p>Debe estar habilitado en el ambiente de certificacion para bajar el set.</p>");
  const numero = String(NUMERO_BASE + 5000 + ctx.state.certifications.size);
  certification.boletas = {
    nombre: "SET DE BOLETA ELECTRONICA",
    numero,
    casos: [1, 2, 3].map((i) => `${numero}-${i}`),
    estado: "POR REALIZAR",
  };
  const text = [
    `SET DE BOLETA ELECTRONICA - NUMERO DE ATENCION: ${numero}`,
    "",
    ...[
      ["Cambio de aceite", "1", "19900"],
      ["Alineacion y balanceo", "1", "9900"],
      ["Filtro de aire", "2", "4500"],
    ].flatMap(([item, qty, price], i) => [
      `CASO ${numero}-${i + 1}`,
      "==============",
      "DOCUMENTO\tBOLETA ELECTRONICA",
      "",
      "ITEM\t\t\tCANTIDAD\tPRECIO UNITARIO",
      `${item}\t\t${qty}\t\t${price}`,
      "",
    ]),
  ].join("\n");
  return new Response(encodeLatin1(text), { headers: { "content-type": "text/plain; charset=ISO-8859-1" } });
}
