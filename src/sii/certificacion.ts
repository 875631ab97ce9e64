// The software-certification process at the SII's certification environment (docs/sii-services.md §12),
// inside a certificate session, as devlas-cl/dte-sii drives it (its portal code was captured from
// the SII's pages): the application (pe_ingrut → pe_datos_empresa → pe_confirma), a new test set
// (pe_generar → pe_generar1 → pe_generar2), the progress of each set (pe_avance1 → pe_avance2),
// the company's data there (ad_empresa1 → ad_empresa2), and the boleta set from the GWT-RPC
// application certBolElectDteInternet. Each shape names its source; the rest is marked inferred.

import { ApiError } from "../lib/api-error.ts";
import { rutCheckDigit } from "../lib/rut.ts";
import { BROWSER_UA } from "./browse.ts";
import { cgiStep, cgiUrl } from "./cgi.ts";
import type { CookieJar } from "./cookies.ts";
import { formIn, labelledValues } from "./forms.ts";
import { cellsOf, type HtmlDocument, type HtmlElement, parsePage, textOf } from "./html.ts";
import { pageText, type SiiAnswer, type SiiContext, siiFetch } from "./http.ts";
import { SessionExpired } from "./sessions.ts";

// Inferred: the SII's wording for these answers is not in the public sources.
const ALREADY = /ya se encuentra postulada/i;
const APPLIED = /postulaci[oó]n ha sido ingresada/i;
// devlas-cl/dte-sii SiiCertificacion.js and cert/SetsProvider.js: "no está inscrito" (latin1 or
// as an entity); "no se encuentra postulada" / "no ha sido posible" are inferred.
const NOT_IN_PROCESS = /no est[aá] inscrit|no se encuentra postulada|no ha sido posible/i;

function fail(service: string, text: string, message: string, status: 400 | 404 | 409 | 502 = 502): ApiError {
  const code =
    status === 502 ? "SII_GATEWAY_ERROR" : status === 409 ? "ALREADY_SUBMITTED" : status === 404 ? "HTTP_404" : "VALIDATION_ERROR";
  return new ApiError(status, code, message, { details: { service, sii_message: pageText(text) } });
}

/** What the decoded page says, for the refusals that are read from its text. */
/** A page as text or already parsed: each answer is parsed once however many readers look at it. */
type Page = string | HtmlDocument;
const parsed = (page: Page) => (typeof page === "string" ? parsePage(page) : page);

const visible = (page: HtmlDocument) => textOf(page.body ?? page.documentElement);

const isCheckbox = (input: HtmlElement) => (input.getAttribute("type") ?? "").toLowerCase() === "checkbox";

const split = (rut: string): [string, string] => {
  const [body = "", dv = ""] = rut.split("-");
  return [body, dv.toUpperCase()];
};

const company = (rut: string): [string, string][] => {
  const [body, dv] = split(rut);
  return [
    ["RUT_EMP", body],
    ["DV_EMP", dv],
  ];
};

/** Fields of `base` with `extra` set (replaced where present, added where not). */
function withFields(base: [string, string][], extra: [string, string][]): [string, string][] {
  const fields = base.filter(([name]) => !extra.some(([n]) => n === name));
  return [...fields, ...extra];
}

// ---------------------------------------------------------------------------------------------
// Application (pe_confirma)

/**
 * The application form's checkboxes for each document type, as devlas-cl/dte-sii CafSolicitor.js
 * (CAMPOS_POSTULACION, "verificados contra el form real del SII") marks them: ESFAC/ESBOL open the
 * invoice/boleta section, CONIVA goes with invoices, SET03/SET06/SET72 are dispatch guides,
 * exempt invoices and purchase invoices, BOLELE+BOLELEC and BOLEXE+BOLEXEN the two boletas.
 */
export const APPLICATION_FIELDS: Record<number, string[]> = {
  33: ["ESFAC", "FACT", "CONIVA"],
  34: ["ESFAC", "SET06"],
  39: ["ESBOL", "BOLELE", "BOLELEC"],
  41: ["ESBOL", "BOLEXE", "BOLEXEN"],
  46: ["ESFAC", "SET72"],
  52: ["ESFAC", "SET03"],
  56: ["ESFAC", "ND"],
  61: ["ESFAC", "NC"],
};

export interface Application {
  contribuyente: string;
  /** The certificate holder, who becomes the company's administrator user (RUT_USU). */
  administrador: string;
  email: string;
  /** The address for exchanges between companies (MAIL_DTE); the contact e-mail when absent. */
  emailIntercambio?: string;
  software: string;
  documentos: number[];
}

/**
 * The fields posted to pe_confirma: the form's own (hidden RUT_EMP, EXISTE_PROD, …), the text
 * fields the SII's script checks (docs/validadte.js pe_confirma: NOM_SW, MAIL_SUP, MAIL_SII,
 * MAIL_DTE, RUT_USU, DV_USU) and the document boxes. A box the form does not offer is refused.
 */
export function applicationFields(html: Page, request: Application): [string, string][] | { missing: string[] } | null {
  const page = parsed(html);
  const form = formIn(page, "pe_confirma");
  if (!form) return null;
  const offered = new Set(
    Array.from(page.querySelectorAll("input"))
      .filter(isCheckbox)
      .map((input) => input.getAttribute("name") ?? ""),
  );
  const boxes = [...new Set(request.documentos.flatMap((d) => APPLICATION_FIELDS[d] ?? []))];
  const missing = boxes.filter((box) => !offered.has(box));
  if (missing.length) return { missing };
  const [rutUsu, dvUsu] = split(request.administrador);
  const text: [string, string][] = [
    ["RUT_USU", rutUsu],
    ["DV_USU", dvUsu],
    ["MAIL_SUP", request.email],
    ["MAIL_SII", request.email],
    ["MAIL_DTE", request.emailIntercambio ?? request.email],
    ["NOM_SW", request.software],
  ];
  // The button's name and label are inferred (the form's submit is not in the public sources).
  return withFields(form, [...text, ...boxes.map((box): [string, string] => [box, "S"]), ["ACEPTAR", "Confirmar Postulación"]]);
}

/** Applies the company to the certification process; a company already in it is a 409 with the SII's text. */
export async function applyForCertification(ctx: SiiContext, jar: CookieJar, request: Application): Promise<{ glosa: string }> {
  const service = "certification_apply";
  const start = await cgiStep(ctx, jar, cgiUrl("1", "pe_ingrut"), service);
  // pe_ingrut asks for the company and posts to pe_datos_empresa (utils/endpoints.js `ingresoRut`); the button is inferred.
  const ask = withFields(formIn(parsePage(start.text), "pe_datos_empresa") ?? [], [
    ...company(request.contribuyente),
    ["ACEPTAR", "Continuar"],
  ]);
  const data = await cgiStep(ctx, jar, cgiUrl("1", "pe_datos_empresa"), service, ask);
  const dataPage = parsePage(data.text);
  if (ALREADY.test(visible(dataPage)))
    throw fail(service, data.text, `${request.contribuyente} is already in the certification process`, 409);
  const fields = applicationFields(dataPage, request);
  if (!fields) throw fail(service, data.text, "The SII did not show the application form");
  if ("missing" in fields) {
    throw fail(service, data.text, `The SII's application form does not offer ${fields.missing.join(", ")} for this company`, 400);
  }
  const done = await cgiStep(ctx, jar, cgiUrl("1", "pe_confirma"), service, fields);
  if (!APPLIED.test(visible(parsePage(done.text)))) throw fail(service, done.text, "The SII did not take the application", 400);
  return { glosa: pageText(done.text) };
}

// ---------------------------------------------------------------------------------------------
// Test set (pe_generar1 → pe_generar2)

/**
 * The optional sets asked for when the caller names none: the ones devlas-cl/dte-sii
 * cert/CertRunner.js (obtenerSets) marks, i.e. every set of the invoice track but exports (SET11)
 * and settlement invoices (SET84). The basic set (SET01) always comes.
 */
export const DEFAULT_OPTIONAL_SETS = ["SET03", "SET06", "SET07", "SET08", "SET09", "SET15", "SET72"];

export interface SetsPage {
  /** The fields pe_generar2 receives from the page (hidden RUT_EMP, DV_EMP, AUTORIZADA, TOTAL). */
  form: [string, string][];
  /** The optional sets the page offers, each as its checkbox name and label. */
  opcionales: { id: string; nombre: string }[];
  /** The sets the company already obtained, as the page's table lists them. */
  obtenidos: { nombre: string; estado: string }[];
}

/**
 * pe_generar1's answer (devlas-cl/dte-sii SiiCertificacion.js generarSetPruebas): a table of the
 * sets obtained (header "Set Obtenido"), SETnn checkboxes for the optional sets and the form to
 * pe_generar2 with hidden AUTORIZADA and TOTAL. Null when the page has no such form.
 */
export function readSetsPage(html: Page): SetsPage | null {
  const root = parsed(html);
  const form = formIn(root, "pe_generar2");
  if (!form) return null;
  const opcionales = Array.from(root.querySelectorAll("input"))
    .filter((input) => isCheckbox(input) && /^SET\d+$/i.test(input.getAttribute("name") ?? ""))
    .map((input) => ({ id: (input.getAttribute("name") ?? "").toUpperCase(), nombre: labelAfter(input) }));
  const obtenidos = rowsOf(root)
    .filter((row) => row.cells.length >= 2 && !row.cells[0]?.querySelector("b"))
    .map((row) => ({ nombre: textOf(row.cells[0] ?? null), estado: textOf(row.cells[1] ?? null) }))
    .filter((set) => set.nombre && !/set obtenido/i.test(set.nombre));
  return { form, opcionales, obtenidos };
}

/** The text that follows a checkbox up to the next control or line break (its label on these pages). */
function labelAfter(input: HtmlElement): string {
  const node = input as unknown as { nextSibling: { nodeType: number; textContent: string | null; nextSibling: unknown } | null };
  let text = "";
  for (let next = node.nextSibling; next && next.nodeType === 3; next = next.nextSibling as typeof next) text += next.textContent ?? "";
  return text.replace(/[\s\u00a0]+/g, " ").trim();
}

/** The fields for pe_generar2: the page's, AUTORIZADA and TOTAL (devlas's defaults S and 15 when absent), SET01 and the chosen sets it offers. */
export function setRequestFields(page: SetsPage, wanted: string[]): [string, string][] {
  const offered = new Set(page.opcionales.map((o) => o.id));
  const chosen = wanted.map((id) => id.toUpperCase()).filter((id) => offered.has(id));
  const defaults: [string, string][] = [
    ["AUTORIZADA", "S"],
    ["TOTAL", "15"],
  ];
  const base = [...page.form, ...defaults.filter(([name]) => !page.form.some(([n]) => n === name))];
  // The button's label is inferred; devlas posts without it.
  return withFields(base, [...chosen.map((id): [string, string] => [id, "S"]), ["SET01", "S"]]);
}

/**
 * The set text in pe_generar2's answer: a text file, or an HTML page holding the text (devlas
 * cert/SetsProvider.js strips the tags: "texto plano dentro del HTML o como descarga"). Null when
 * the answer carries no set.
 */
export function readTestSetAnswer(answer: { headers: Headers; text: string }): string | null {
  const type = answer.headers.get("content-type") ?? "";
  let text = answer.text;
  if (!/text\/plain|octet-stream/i.test(type) || /^\s*(<!--[\s\S]*?-->\s*)?<(html|!doctype)/i.test(text)) {
    const root = parsePage(text);
    text = (root.querySelector("pre") ?? root.body ?? root.documentElement)?.textContent ?? "";
  }
  text = text.replace(/\r\n?/g, "\n").replace(/^\n+/, "");
  return /N[UÚ]MERO DE ATENCI[OÓ]N/i.test(text) ? text : null;
}

/** Asks for a new test set with the optional sets `wanted` (when the page offers them). */
export async function requestTestSet(
  ctx: SiiContext,
  jar: CookieJar,
  contribuyente: string,
  wanted = DEFAULT_OPTIONAL_SETS,
): Promise<string> {
  const service = "certification_set";
  const start = await cgiStep(ctx, jar, cgiUrl("1", "pe_generar"), service);
  // devlas-cl/dte-sii SiiCertificacion.js: pe_generar1 with CODIGO 8 and "Confirmar Empresa".
  const confirm = withFields(formIn(parsePage(start.text), "pe_generar1") ?? [], [
    ...company(contribuyente),
    ["CODIGO", "8"],
    ["ACEPTAR", "Confirmar Empresa"],
  ]);
  const listing = await cgiStep(ctx, jar, cgiUrl("1", "pe_generar1"), service, confirm, cgiUrl("1", "pe_generar"));
  const listingPage = parsePage(listing.text);
  if (NOT_IN_PROCESS.test(visible(listingPage)))
    throw fail(service, listing.text, `The SII gives no test set: ${contribuyente} is not in the certification process`, 404);
  const page = readSetsPage(listingPage);
  if (!page) throw fail(service, listing.text, "The SII did not show the test sets page");
  const answer = await cgiStep(ctx, jar, cgiUrl("1", "pe_generar2"), service, setRequestFields(page, wanted), cgiUrl("1", "pe_generar1"));
  const text = readTestSetAnswer(answer);
  if (text === null) {
    if (NOT_IN_PROCESS.test(visible(parsePage(answer.text))))
      throw fail(service, answer.text, `The SII gives no test set: ${contribuyente} is not in the certification process`, 404);
    throw fail(service, answer.text, "The SII did not answer with a test set");
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Progress (pe_avance2)

export interface SetProgress {
  set: string;
  numero_atencion: string;
  estado: string;
  track_id: string | null;
  observaciones: string | null;
}

interface Row {
  element: HtmlElement;
  cells: HtmlElement[];
}

function rowsOf(root: HtmlDocument): Row[] {
  return Array.from(root.querySelectorAll("tr")).map((element) => ({ element, cells: cellsOf(element) }));
}

// devlas-cl/dte-sii SiiCertificacion.js (consultarEstadoSets): EST S01 = sin declarar, S21 = declarado.
const DECLARATION: Record<string, string> = { S01: "SIN DECLARAR", S21: "DECLARADO" };

/**
 * pe_avance2's rows (devlas-cl/dte-sii SiiCertificacion.js consultarEstadoSets, declararAvance):
 * a set or book named in the first cell; its state in <b>…</b>, or, while still to declare, the
 * NUM_ENVn/FEC_ENVn inputs with hidden ESTn. The cells after the state (attention number, the
 * envelope's track id, remarks) are inferred.
 */
export function readProgress(html: Page): SetProgress[] {
  const root = parsed(html);
  const progress: SetProgress[] = [];
  for (const row of rowsOf(root)) {
    const [first, ...rest] = row.cells;
    const name = textOf(first ?? null);
    if (!first || first.querySelector("b") || !/^(SET|LIBRO)\b/i.test(name)) continue;
    const input = (prefix: string) =>
      Array.from(row.element.querySelectorAll("input")).find((i) => new RegExp(`^${prefix}\\d+$`, "i").test(i.getAttribute("name") ?? ""));
    const value = (element: HtmlElement | undefined) => element?.getAttribute("value") ?? "";
    const bold = row.element.querySelector("b");
    const declaration = value(input("EST"));
    const estado = bold ? textOf(bold).toUpperCase() : (DECLARATION[declaration] ?? declaration);
    const stateAt = rest.findIndex((cell) => cell.querySelector("b") || cell.querySelector("input"));
    const after = rest.slice(stateAt + 1).map((cell) => textOf(cell));
    const digits = (text: string | undefined) => (text && /^\d+$/.test(text) ? text : "");
    const numero = digits(after[0]) || digits(value(input("SET")));
    const sent = digits(value(input("NUM_ENV"))) || digits(after[1]);
    progress.push({ set: name, numero_atencion: numero, estado, track_id: sent || null, observaciones: after[2] || null });
  }
  return progress;
}

/** Each set's state as pe_avance2 shows it (REVISADO CONFORME, EN REVISION, …, or SIN DECLARAR). */
export async function certificationProgress(ctx: SiiContext, jar: CookieJar, contribuyente: string): Promise<SetProgress[]> {
  const service = "certification_progress";
  const start = await cgiStep(ctx, jar, cgiUrl("1", "pe_avance1"), service);
  const ask = formIn(parsePage(start.text), "pe_avance2");
  if (!ask) throw fail(service, start.text, "The SII did not show the progress form");
  // devlas-cl/dte-sii SiiCertificacion.js: RUT_EMP, DV_EMP and "Continuar", with pe_avance1 as referer.
  const page = await cgiStep(
    ctx,
    jar,
    cgiUrl("1", "pe_avance2"),
    service,
    withFields(ask, [...company(contribuyente), ["ACEPTAR", "Continuar"]]),
    cgiUrl("1", "pe_avance1"),
  );
  const progressPage = parsePage(page.text);
  if (NOT_IN_PROCESS.test(visible(progressPage)))
    throw fail(service, page.text, `${contribuyente} is not in the certification process`, 404);
  const progress = readProgress(progressPage);
  if (!progress.length && !formIn(progressPage, "pe_avance3"))
    throw fail(service, page.text, "The SII did not answer with the progress page");
  return progress;
}

// ---------------------------------------------------------------------------------------------
// Company data (ad_empresa2)

export interface CertificationData {
  rut: string;
  razon_social: string;
  resolucion: { numero: number; fecha: string | null };
  emails: { contacto_sii: string | null; intercambio: string | null };
  software: string | null;
  estado: string;
}

const plain = (label: string) =>
  label
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();

/**
 * ad_empresa2's table: label/value rows without </TR> (devlas-cl/dte-sii SiiPortalAuth.js
 * _parsearTablaEmpresa: `Rut`, `Razón Social`, /^resoluci/ for the number, /fecha.*resol/ for its
 * date in DD-MM-YYYY); "Nombre del Software (*)" and "Mail Contacto" from a public Python portal
 * client, which also reads resolution 0 as certification not finished. The exchange e-mail and
 * an explicit state row are inferred. Null when the page has no `Rut` row.
 */
export function readCertificationData(html: Page): CertificationData | null {
  const pairs = labelledValues(parsed(html)).map(([label, value]): [string, string] => [plain(label), value]);
  const find = (test: (label: string) => boolean) => pairs.find(([label]) => test(label))?.[1];
  const rut = find((l) => l === "rut");
  if (rut === undefined) return null;
  const numero = find((l) => l.startsWith("resoluci"));
  const fecha = find((l) => /fecha.*resol/.test(l));
  const iso = fecha ? (/^(\d{2})-(\d{2})-(\d{4})$/.exec(fecha)?.slice(1).reverse().join("-") ?? fecha) : null;
  const resolucion = { numero: Number.parseInt(numero ?? "0", 10) || 0, fecha: iso || null };
  const derived = numero === undefined && !fecha ? "SIN RESOLUCION" : resolucion.numero > 0 ? "AUTORIZADO" : "EN CERTIFICACION";
  return {
    rut,
    razon_social: find((l) => l === "razon social") ?? "",
    resolucion,
    emails: {
      contacto_sii: find((l) => l.startsWith("mail contacto")) || null,
      intercambio: find((l) => l.includes("intercambio")) || null,
    },
    software: find((l) => l.startsWith("nombre del software")) || null,
    estado: find((l) => l === "estado") || derived,
  };
}

/** The company as the certification environment has it (resolution 0 and its date while certifying, e-mail, software). */
export async function certificationData(ctx: SiiContext, jar: CookieJar, contribuyente: string): Promise<CertificationData> {
  const service = "certification_data";
  // devlas-cl/dte-sii SiiPortalAuth.js (obtenerDatosEmpresa): GET ad_empresa1, then POST ad_empresa2 with ACEPTAR=Ingresar.
  await cgiStep(ctx, jar, cgiUrl("1", "ad_empresa1"), service);
  const page = await cgiStep(ctx, jar, cgiUrl("1", "ad_empresa2"), service, [...company(contribuyente), ["ACEPTAR", "Ingresar"]]);
  const data = readCertificationData(page.text);
  if (!data) throw fail(service, page.text, "The SII did not answer with the company's data");
  return data;
}

// ---------------------------------------------------------------------------------------------
// Boleta test set (certBolElectDteInternet, GWT-RPC)

// devlas-cl/dte-sii cert/CertRunner.js (obtenerSetBoletaPortal): module base, permutation,
// serialization policy and service of the SII's GWT application, on www4 for both ambientes.
export const BOLETA_APP = "https://www4.sii.cl/certBolElectDteInternet/";
const PERMUTATION = "0FC3D987613537E6E13E9BB93A406F13";
const POLICY = "082D0AC4BC4D75A5DF38F116C53877D4";
const FACADE = "cl.sii.sdi.diii.certBolElectDte.web.client.service.Facade";
const INTEGER = "java.lang.Integer/3438268394";
const STRING = "java.lang.String/2004016611";

type GwtValue = { integer: number } | { string: string };

/**
 * A GWT-RPC call (protocol 7): the string table (module base, policy, service, method, the
 * parameter types, then each string value once) and the payload of indices. Rebuilds byte for
 * byte the two calls devlas-cl/dte-sii cert/CertRunner.js sends.
 */
export function gwtRequest(method: string, params: GwtValue[]): string {
  const table: string[] = [];
  const index = (s: string) => {
    const at = table.indexOf(s);
    if (at >= 0) return at + 1;
    table.push(s);
    return table.length;
  };
  const head = [BOLETA_APP, POLICY, FACADE, method].map(index);
  const types = params.map((p) => index("integer" in p ? INTEGER : STRING));
  const values = params.flatMap((p) => ("integer" in p ? [index(INTEGER), p.integer] : [index(p.string)]));
  const escaped = (s: string) => s.replaceAll("\\", "\\\\").replaceAll("|", "\\!");
  return ["7", "0", table.length, ...table.map(escaped), ...head, params.length, ...types, ...values, ""].join("|");
}

/**
 * The string table of a GWT-RPC answer (`//OK[…,["s1","s2"],0,7]`), as devlas reads it (the
 * array before the closing flags and version). Null for an exception (`//EX`) or another answer.
 */
export function gwtStrings(answer: string): string[] | null {
  if (!answer.startsWith("//OK[")) return null;
  const end = answer.lastIndexOf("],0,7]");
  const start = answer.lastIndexOf(",[", end);
  if (end < 0 || start < 0) return [];
  try {
    const strings: unknown = JSON.parse(answer.slice(start + 1, end + 1));
    return Array.isArray(strings) ? strings.map(String) : [];
  } catch {
    return [];
  }
}

/** A request to the boleta application with the session's cookies; a redirect to the login means the session is gone. */
async function boletaFetch(ctx: SiiContext, jar: CookieJar, service: string, url: string, init: RequestInit): Promise<SiiAnswer> {
  const headers = new Headers(init.headers);
  headers.set("user-agent", BROWSER_UA);
  const cookie = jar.header(url);
  if (cookie) headers.set("cookie", cookie);
  const answer = await siiFetch(ctx, new Request(url, { ...init, headers, redirect: "manual" }), { service, read: true });
  jar.store(url, answer.headers);
  if (answer.status >= 300 && answer.status < 400 && /CAutInicio|autInicio/i.test(answer.headers.get("location") ?? ""))
    throw new SessionExpired();
  return answer;
}

async function gwtCall(ctx: SiiContext, jar: CookieJar, service: string, method: string, params: GwtValue[]): Promise<string> {
  const headers = { "content-type": "text/x-gwt-rpc; charset=UTF-8", "x-gwt-permutation": PERMUTATION, "x-gwt-module-base": BOLETA_APP };
  const answer = await boletaFetch(ctx, jar, service, `${BOLETA_APP}facade`, { method: "POST", headers, body: gwtRequest(method, params) });
  if (!answer.text.startsWith("//OK")) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", `The SII's boleta certification application refused ${method}`, {
      details: { service, sii_status: answer.status, sii_message: answer.text.slice(0, 300) },
    });
  }
  return answer.text;
}

/**
 * The company's representative for the download: the certificate holder when the SII lists them
 * among the company's current representatives and authorized users, else the last one listed (as
 * devlas does); null when it lists none (the company is not in the boleta certification).
 */
export function boletaRepresentative(strings: string[], holder: string): string | null {
  const ruts = strings.filter((s) => /^\d{7,8}$/.test(s));
  const [holderBody] = split(holder);
  const body = ruts.includes(holderBody) ? holderBody : ruts.at(-1);
  return body ? `${body}-${rutCheckDigit(body)}` : null;
}

/**
 * Downloads the boleta test set (devlas-cl/dte-sii cert/CertRunner.js obtenerSetBoletaPortal):
 * recuperarRepresentantesVigentesUsuariosAutorizados(rut, dv), then obtenerPostulacionSeg(rut, dv,
 * "90", "P90") which the application calls before a download, then GET DownloadFileServlet with
 * the company, the representative and the provider's e-mail.
 */
export async function requestBoletaTestSet(
  ctx: SiiContext,
  jar: CookieJar,
  contribuyente: string,
  holder: string,
  email = "",
): Promise<string> {
  const service = "certification_boleta_set";
  const [rut, dv] = split(contribuyente);
  const representatives = await gwtCall(ctx, jar, service, "recuperarRepresentantesVigentesUsuariosAutorizados", [
    { integer: Number(rut) },
    { string: dv },
  ]);
  const representative = boletaRepresentative(gwtStrings(representatives) ?? [], holder);
  if (!representative) {
    throw new ApiError(
      404,
      "HTTP_404",
      `${contribuyente} has no representative in the SII's boleta certification: it is not in the process`,
      {
        details: { service, sii_message: representatives.slice(0, 300) },
      },
    );
  }
  await gwtCall(ctx, jar, service, "obtenerPostulacionSeg", [
    { integer: Number(rut) },
    { string: dv },
    { string: "90" },
    { string: "P90" },
  ]);
  const [repBody, repDv] = split(representative);
  const query = new URLSearchParams({ rutEmpresa: rut, dvEmpresa: dv, rutRepre: repBody, dvRepre: repDv, mailProvSw: email });
  const answer = await boletaFetch(ctx, jar, service, `${BOLETA_APP}DownloadFileServlet?${query}`, {
    headers: { accept: "text/plain,text/html,*/*", referer: `${BOLETA_APP}?SET=1` },
  });
  // devlas treats an answer of under ten characters as no set; a set always has its cases.
  if (answer.status !== 200 || !/\bCASO\b/i.test(answer.text)) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII did not answer with the boleta test set", {
      details: { service, sii_status: answer.status, sii_message: pageText(answer.text) },
    });
  }
  return answer.text.replace(/\r\n?/g, "\n");
}
