// After the SII stamped a folio range (of_genera_folio, irreversible), its CAF file must reach the
// caller: the download is retried when the SII answers its transient DTE-OFGA, and when it still
// fails the range is re-obtained through the SII's re-obtaining pages. Nothing here stamps.
//
// Sources: devlas-cl/dte-sii CafSolicitor.js (`_processGeneraArchivo` posts of_genera_archivo again
// up to three times, 3, 6 and 9 s apart, while the answer carries "DTE-OFGA" and no <AUTORIZACION>;
// `listarReobtenibles`/`reobtenerCaf`: rf_reobtencion1_folios → rf_reobtencion2_folios (RUT_EMP,
// DV_EMP, PAGINA 1, COD_DOCTO, ACEPTAR "Consultar") → rf_reobtencion3_folios with a range's form →
// rf_genera_folio (ACEPTAR "Solicitar Folios") → rf_genera_archivo (ACEPTAR "AQUI"); "ha sido
// anulado" on the confirmation means the range was annulled); sergiokml/PortalFacturas
// `Cve.Impuestos/Properties/Impuestos.resx` (the five page names) and
// `Cve.Impuestos/Services/Templates/Tabla reobtenciones.html`, `Confirma reobtencion.html` (the
// list's forms and the confirmation's hidden fields), whose facts the sandbox restates.

import { ApiError } from "../lib/api-error.ts";
import { elementText } from "../lib/xml.ts";
import type { Page } from "./browse.ts";
import { cgiStep, cgiUrl } from "./cgi.ts";
import type { CookieJar } from "./cookies.ts";
import { type FolioRange, rangeForms } from "./folios-pages.ts";
import { formFor } from "./forms.ts";
import type { Ambiente } from "./hosts.ts";
import { pageText, type SiiContext } from "./http.ts";

/** The SII's transient failure to write the CAF file (devlas CafSolicitor.js). */
const TRANSIENT = /DTE-OFGA/;
/** Retries after the first DTE-OFGA, as devlas does. */
export const DOWNLOAD_RETRIES = 3;
/** Where a person re-obtains a stamped range at the SII (the page the gateway starts from). */
export const REOBTAIN_PAGE = "rf_reobtencion1_folios";

export interface Stamped extends FolioRange {
  emisor: string;
  tipo: number;
  ambiente: Ambiente;
}

/** Why the file could not be had, step by step, for the error that tells the caller what happened. */
export class NoCafFile extends Error {}

const pause = (ctx: SiiContext, attempt: number) =>
  // The sandbox answers at once; the live SII is given time, as devlas gives it.
  ctx.transport.mode === "live" ? new Promise((resolve) => setTimeout(resolve, attempt * 3000)) : Promise.resolve();

/** The CAF text of a download answer when it is the stamped range's file, else null. */
function cafOf(page: Page, range: Stamped): string | null {
  if (!/<AUTORIZACION>/.test(page.text)) return null;
  const desde = Number(elementText(page.text, "D"));
  const hasta = Number(elementText(page.text, "H"));
  const tipo = Number(elementText(page.text, "TD"));
  if (desde !== range.desde || hasta !== range.hasta || tipo !== range.tipo) {
    throw new NoCafFile(`the file the SII sent is for type ${tipo} folios ${desde}-${hasta}, not the stamped range`);
  }
  return page.text;
}

/** Posts a download form, again while the SII answers DTE-OFGA; the file's text, or NoCafFile. */
export async function download(
  ctx: SiiContext,
  jar: CookieJar,
  step: { url: string; service: string; fields: [string, string][]; referer: string },
  range: Stamped,
): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const page = await cgiStep(ctx, jar, step.url, step.service, step.fields, step.referer);
    const caf = cafOf(page, range);
    if (caf) return caf;
    const transient = TRANSIENT.test(page.text);
    if (!transient || attempt >= DOWNLOAD_RETRIES) {
      const tries = attempt + 1;
      throw new NoCafFile(
        `${step.url.split("/").pop()} answered ${transient ? "DTE-OFGA" : "no CAF file"} (${tries} ${tries === 1 ? "try" : "tries"}): ${pageText(page.text, 160)}`,
      );
    }
    await pause(ctx, attempt + 1);
  }
}

/** Re-obtains a stamped range's CAF through the re-obtaining pages; its text, or NoCafFile saying which step failed. */
export async function reobtain(ctx: SiiContext, jar: CookieJar, range: Stamped): Promise<string> {
  const [rut = "", dv = ""] = range.emisor.split("-");
  const service = "caf_reobtain";
  const url = (page: string) => cgiUrl(range.ambiente, page);
  await cgiStep(ctx, jar, url(REOBTAIN_PAGE), service);
  const list = await cgiStep(ctx, jar, url("rf_reobtencion2_folios"), service, [
    ["RUT_EMP", rut],
    ["DV_EMP", dv],
    ["PAGINA", "1"],
    ["COD_DOCTO", String(range.tipo)],
    ["ACEPTAR", "Consultar"],
  ]);
  const listed = rangeForms(list.text, "rf_reobtencion3_folios", service).find((r) => r.desde === range.desde && r.hasta === range.hasta);
  if (!listed) throw new NoCafFile(`the re-obtaining list does not offer ${range.desde}-${range.hasta}: ${pageText(list.text, 160)}`);
  const confirm = await cgiStep(ctx, jar, url("rf_reobtencion3_folios"), service, listed.fields, list.url);
  if (/ha\s+sido\s+anulado/i.test(confirm.text)) throw new NoCafFile(`the SII says range ${range.desde}-${range.hasta} was annulled`);
  const generate = formFor(confirm.text, "rf_genera_folio", { ACEPTAR: "Solicitar Folios" });
  if (!generate) throw new NoCafFile(`the re-obtaining confirmation offered no form: ${pageText(confirm.text, 160)}`);
  const granted = await cgiStep(ctx, jar, url("rf_genera_folio"), service, generate, confirm.url);
  const fields = formFor(granted.text, "rf_genera_archivo", { ACEPTAR: "AQUI" });
  if (!fields) throw new NoCafFile(`rf_genera_folio offered no download: ${pageText(granted.text, 160)}`);
  return download(ctx, jar, { url: url("rf_genera_archivo"), service, fields, referer: granted.url }, range);
}

/**
 * Folios stamped and no file: a 502 that says exactly that, with the range and where to re-obtain
 * it, so nobody stamps again for a file the SII already holds.
 */
export function stampedWithoutFile(range: Stamped, reasons: string[]): ApiError {
  const folios = `${range.desde}-${range.hasta}`;
  return new ApiError(
    502,
    "SII_GATEWAY_ERROR",
    `The SII stamped folios ${folios} of type ${range.tipo} for ${range.emisor}, but their CAF file could not be downloaded nor re-obtained. Do not request them again: re-obtain the file at the SII (Factura electrónica → Timbraje electrónico → Reobtención de folios, ${REOBTAIN_PAGE}) for type ${range.tipo}, range ${folios}`,
    {
      details: {
        service: "caf_download",
        folios,
        folio_inicial: range.desde,
        folio_final: range.hasta,
        estampados: true,
        reobtener_en: cgiUrl(range.ambiente, REOBTAIN_PAGE),
        intentos: reasons,
      },
    },
  );
}

/** The file of a stamped range: downloaded (with retries) when `first` is given, else or then re-obtained. */
export async function fileOfStamped(
  ctx: SiiContext,
  jar: CookieJar,
  range: Stamped,
  first: { url: string; fields: [string, string][]; referer: string } | null,
): Promise<{ caf: string; reobtenido: boolean }> {
  const reasons: string[] = [];
  const failed = (error: unknown) => reasons.push(error instanceof Error ? error.message : String(error));
  if (first) {
    try {
      return { caf: await download(ctx, jar, { ...first, service: "caf_download" }, range), reobtenido: false };
    } catch (error) {
      failed(error);
    }
  }
  try {
    return { caf: await reobtain(ctx, jar, range), reobtenido: true };
  } catch (error) {
    failed(error);
  }
  throw stampedWithoutFile(range, reasons);
}
