// The certification environment's pages the gateway answers from: the progress of each test set
// (pe_avance2) and the company's data there (ad_empresa2). Both are read by their labels (accents,
// case and spacing aside, with the synonyms below), never by position alone, and checked against
// what they promise (each set once and in a state the SII is known to use, numbers that are
// numbers, the company asked for); a page that does not fit is SII_FORMAT_CHANGED, never a 200.

import { parseRut } from "../lib/rut.ts";
import { formatChanged } from "./format-changed.ts";
import { labelledValues } from "./forms.ts";
import { cellsOf, type HtmlDocument, type HtmlElement, parsePage, textOf } from "./html.ts";

/** A page as text or already parsed: each answer is parsed once however many readers look at it. */
export type Page = string | HtmlDocument;
export const parsed = (page: Page) => (typeof page === "string" ? parsePage(page) : page);

/** A label as compared: no accents, lower case, one space between words, no trailing "(*)" or colon. */
export const plain = (label: string) =>
  label
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[\s\u00a0]+/g, " ")
    .replace(/\s*(\(\*\)|:)\s*$/, "")
    .trim()
    .toLowerCase();

const excerptOf = (root: HtmlDocument) => textOf(root.body ?? root.documentElement).slice(0, 300);

// ---------------------------------------------------------------------------------------------
// Progress (pe_avance2)

export interface SetProgress {
  set: string;
  numero_atencion: string;
  estado: string;
  track_id: string | null;
  observaciones: string | null;
}

const PROGRESS = "certification_progress";

/**
 * pe_avance2's header labels (the sandbox's fixture, after devlas-cl/dte-sii SiiCertificacion.js:
 * the set's name first, its state in the next cell); the attention-number, envelope and remarks
 * columns, and their synonyms, are inferred.
 */
const PROGRESS_COLUMNS = {
  set: /^(set|libro|set ?\/ ?libro|nombre del set)$/,
  estado: /^estado( del set| de revision)?$/,
  numero_atencion: /atencion/,
  track_id: /^(n(umero|ro\.?|°)? ?de )?(envio|track ?id)/,
  observaciones: /^(observaciones?|reparos|glosa)$/,
} as const;
type ProgressColumn = keyof typeof PROGRESS_COLUMNS;

/**
 * The states a set is known to take. devlas-cl/dte-sii SiiCertificacion.js: REVISADO CONFORME, EN
 * REVISION, "ERRORES O REPAROS" (a state of the envelope), and the hidden EST S01 (sin declarar) /
 * S21 (declarado); a public Python certification client (core/postulacion.py): POR REALIZAR and SRH
 * (refused, "No Tiene un SET Basico Aprobado"). "ENVIO CON ERRORES O REPAROS" and RECHAZADO are
 * inferred spellings.
 */
const KNOWN_STATE =
  /^(REVISADO CONFORME|EN REVISION|POR REALIZAR|SIN DECLARAR|DECLARADO|RECHAZADO|(ENVIO CON )?ERRORES O REPAROS|SRH\b.*)$/;
const DECLARATION: Record<string, string> = { S01: "SIN DECLARAR", S21: "DECLARADO" };

const upper = (text: string) => plain(text).toUpperCase();
const isSetName = (text: string) => /^(SET|LIBRO)\b/i.test(text);
const digitsOrEmpty = (text: string) => /^\d*$/.test(text);

/** The columns a header row names, by label; null when the row is not the header. */
function headerOf(row: HtmlElement[]): Partial<Record<ProgressColumn, number>> | null {
  const at: Partial<Record<ProgressColumn, number>> = {};
  row.forEach((cell, index) => {
    const label = plain(textOf(cell));
    for (const [column, pattern] of Object.entries(PROGRESS_COLUMNS) as [ProgressColumn, RegExp][])
      if (at[column] === undefined && pattern.test(label)) at[column] = index;
  });
  return at.set !== undefined && at.estado !== undefined ? at : null;
}

/**
 * pe_avance2's rows: a set or book named in its column; its state in <b>…</b>, or, while still to
 * declare, the NUM_ENVn/FEC_ENVn inputs with hidden SETn/ESTn (devlas-cl/dte-sii
 * SiiCertificacion.js consultarEstadoSets, declararAvance). With `contribuyente`, the page's
 * hidden RUT_EMP/DV_EMP must name that company.
 */
export function readProgress(html: Page, contribuyente?: string): SetProgress[] {
  const root = parsed(html);
  const rows = Array.from(root.querySelectorAll("tr")).map((element) => ({ element, cells: cellsOf(element) }));
  const headerAt = rows.findIndex((row) => headerOf(row.cells));
  const sets = rows.filter((row, i) => i !== headerAt && isSetName(textOf(row.cells[0])));
  if (!sets.length) return [];
  const fail = (check: string) => formatChanged(PROGRESS, check, excerptOf(root));
  if (headerAt < 0) throw fail("no header row naming the set and its state (Set / Libro, Estado)");
  if (rows.indexOf(sets[0] as (typeof rows)[number]) < headerAt) throw fail("a set listed before the header row");
  const columns = headerOf(rows[headerAt]?.cells ?? []) ?? {};
  const company = companyOf(root);
  if (contribuyente && company && company !== contribuyente) throw fail(`the page is about ${company}, not ${contribuyente}`);
  const seen = new Set<string>();
  return sets.map(({ element, cells }) => {
    const cell = (column: ProgressColumn) => {
      const index = columns[column];
      return index === undefined ? "" : textOf(cells[index]);
    };
    const input = (prefix: string) =>
      Array.from(element.querySelectorAll("input")).find((i) => new RegExp(`^${prefix}\\d+$`, "i").test(i.getAttribute("name") ?? ""));
    const value = (prefix: string) => (input(prefix)?.getAttribute("value") ?? "").trim();
    const name = cell("set");
    if (seen.has(upper(name))) throw fail(`${name} listed twice`);
    seen.add(upper(name));
    const stateCell = cells[columns.estado ?? -1];
    const bold = stateCell?.querySelector("b");
    const declaration = value("EST");
    const estado = bold ? upper(textOf(bold)) : declaration ? (DECLARATION[declaration] ?? declaration) : upper(textOf(stateCell));
    if (!KNOWN_STATE.test(estado)) throw fail(`${name}'s state "${estado || "(none)"}" is not one the SII is known to use`);
    const numero = cell("numero_atencion") || value("SET");
    const track = cell("track_id") || value("NUM_ENV");
    if (!digitsOrEmpty(numero)) throw fail(`${name}'s attention number "${numero}" is not a number`);
    if (!digitsOrEmpty(track)) throw fail(`${name}'s envelope "${track}" is not a track id`);
    return { set: name, numero_atencion: numero, estado, track_id: track || null, observaciones: cell("observaciones") || null };
  });
}

/** The company a cvc_cgi page's form carries (hidden RUT_EMP and DV_EMP), if it carries one. */
function companyOf(root: HtmlDocument): string | null {
  const inputs = Array.from(root.querySelectorAll("input"));
  const hidden = (name: string) =>
    inputs
      .find((i) => (i.getAttribute("name") ?? "").toUpperCase() === name)
      ?.getAttribute("value")
      ?.trim() ?? "";
  const body = hidden("RUT_EMP");
  return body ? `${body}-${hidden("DV_EMP").toUpperCase()}` : null;
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

const DATA = "certification_data";

/**
 * ad_empresa2's labels. devlas-cl/dte-sii SiiPortalAuth.js _parsearTablaEmpresa: `Rut`, `Razón
 * Social`, /^resoluci/ for the number, /fecha.*resol/ for its date in DD-MM-YYYY; a public Python
 * portal client (datos_software): "Nombre del Software (*)", "Mail Contacto". The other spellings,
 * the exchange e-mail and an explicit state row are inferred.
 */
const DATA_LABELS = {
  rut: /^rut$/,
  razon_social: /^(razon social|nombre o razon social)$/,
  numero: /^(n(umero|ro\.?|°) (de )?)?resolucion$/,
  fecha: /^fecha (de )?resolucion$/,
  software: /^(nombre del )?software$/,
  contacto: /^(mail|correo|e-?mail) (de )?contacto/,
  intercambio: /intercambio/,
  estado: /^estado$/,
} as const;

/**
 * ad_empresa2's table: label/value rows without </TR>. The Rut must be a valid RUT (and the
 * company asked, when given), the resolution a number, its date a real DD-MM-YYYY date, and an
 * authorized company (resolution above 0) has its date: devlas refuses an emitter without both.
 * Null when no row is labelled Rut (not the company's data page).
 */
export function readCertificationData(html: Page, contribuyente?: string): CertificationData | null {
  const root = parsed(html);
  const pairs = labelledValues(root).map(([label, value]): [string, string] => [plain(label), value]);
  const find = (label: keyof typeof DATA_LABELS) => pairs.find(([l]) => DATA_LABELS[label].test(l))?.[1];
  const fail = (check: string) => formatChanged(DATA, check, excerptOf(root));
  const rutText = find("rut");
  if (rutText === undefined) return null;
  const rut = parseRut(rutText);
  if (!rut.ok) throw fail(`the Rut row "${rutText}" is not a RUT`);
  if (contribuyente && rut.rut !== contribuyente) throw fail(`the page is about ${rut.rut}, not ${contribuyente}`);
  const numeroText = find("numero");
  if (numeroText && !/^\d+$/.test(numeroText)) throw fail(`the resolution number "${numeroText}" is not a number`);
  const fecha = find("fecha");
  const iso = fecha ? isoDate(fecha) : null;
  if (fecha && !iso) throw fail(`the resolution date "${fecha}" is not a DD-MM-YYYY date`);
  const numero = numeroText ? Number(numeroText) : 0;
  if (numero > 0 && !iso) throw fail(`resolution ${numero} without its date`);
  const derived = numeroText === undefined && !fecha ? "SIN RESOLUCION" : numero > 0 ? "AUTORIZADO" : "EN CERTIFICACION";
  return {
    rut: rut.rut,
    razon_social: find("razon_social") ?? "",
    resolucion: { numero, fecha: iso },
    emails: { contacto_sii: find("contacto") || null, intercambio: find("intercambio") || null },
    software: find("software") || null,
    estado: find("estado") || derived,
  };
}

/** DD-MM-YYYY (or with slashes) as YYYY-MM-DD when it is a day of the calendar; null otherwise. */
function isoDate(text: string): string | null {
  const match = /^(\d{2})[-/](\d{2})[-/](\d{4})$/.exec(text);
  if (!match) return null;
  const [, day = "", month = "", year = ""] = match;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCDate() === Number(day) && date.getUTCMonth() === Number(month) - 1 ? `${year}-${month}-${day}` : null;
}
