// The software-certification process at the SII's certification environment (docs/sii-services.md §12),
// inside a certificate session, as devlas-cl/dte-sii drives it (its portal code was captured from
// the SII's pages): the application (pe_ingrut → pe_datos_empresa → pe_confirma), a new test set
// (pe_generar → pe_generar1 → pe_generar2), the progress of each set (pe_avance1 → pe_avance2),
// the company's data there (ad_empresa1 → ad_empresa2), and the boleta set from the GWT-RPC
// application certBolElectDteInternet (certificacion-boleta.ts). Each shape names its source; the rest
// is marked inferred.

import { ApiError } from "../lib/api-error.ts";
import { splitRut } from "../lib/rut.ts";
import { type CertificationData, type Page, parsed, readCertificationData, readProgress, type SetProgress } from "./certificacion-read.ts";
import { TEST_SET_MARK } from "./certificacion-set-pruebas.ts";
import { cgiStep, cgiUrl } from "./cgi.ts";
import type { CookieJar } from "./cookies.ts";
import { formatChanged } from "./format-changed.ts";
import { formIn } from "./forms.ts";
import { cellsOf, type HtmlDocument, type HtmlElement, parsePage, textOf } from "./html.ts";
import { pageText, type SiiContext } from "./http.ts";

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
const visible = (page: HtmlDocument) => textOf(page.body ?? page.documentElement);

const isCheckbox = (input: HtmlElement) => (input.getAttribute("type") ?? "").toLowerCase() === "checkbox";

const rowsOf = (root: HtmlDocument) => Array.from(root.querySelectorAll("tr")).map((row) => ({ cells: cellsOf(row) }));

const company = (rut: string): [string, string][] => {
  const [body, dv] = splitRut(rut);
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
  const [rutUsu, dvUsu] = splitRut(request.administrador);
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
  return TEST_SET_MARK.test(text) ? text : null;
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
// Progress (pe_avance2) and company data (ad_empresa2), read in certificacion-read.ts

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
  const progress = readProgress(progressPage, contribuyente);
  if (!progress.length && !formIn(progressPage, "pe_avance3"))
    throw formatChanged(service, "neither a set's row nor the pe_avance3 form: not the progress page", pageText(page.text));
  return progress;
}
/** The company as the certification environment has it (resolution 0 and its date while certifying, e-mail, software). */
export async function certificationData(ctx: SiiContext, jar: CookieJar, contribuyente: string): Promise<CertificationData> {
  const service = "certification_data";
  // devlas-cl/dte-sii SiiPortalAuth.js (obtenerDatosEmpresa): GET ad_empresa1, then POST ad_empresa2 with ACEPTAR=Ingresar.
  await cgiStep(ctx, jar, cgiUrl("1", "ad_empresa1"), service);
  const page = await cgiStep(ctx, jar, cgiUrl("1", "ad_empresa2"), service, [...company(contribuyente), ["ACEPTAR", "Ingresar"]]);
  const data = readCertificationData(page.text, contribuyente);
  if (!data) throw formatChanged(service, "no row labelled Rut: not the company's data page", pageText(page.text));
  return data;
}
