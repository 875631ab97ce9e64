// Folio ranges (CAF) at the SII, inside a certificate session (docs/sii-services.md §3.1, §3.4): the
// timbraje forms posted back with every hidden field, and the annulment forms. The stamping step
// is irreversible and never retried; after it, the file is downloaded or re-obtained (folios-reobtain.ts).

import { ApiError } from "../lib/api-error.ts";
import { encodeLatin1 } from "../lib/latin1.ts";
import { elementText } from "../lib/xml.ts";
import type { Page } from "./browse.ts";
import { cgiStep, cgiUrl } from "./cgi.ts";
import type { CookieJar } from "./cookies.ts";
import { alreadyAuthorized, type FolioRange, rangeForms, rangeOf, stampingLimits } from "./folios-pages.ts";
import { fileOfStamped, REOBTAIN_PAGE, reobtain, type Stamped } from "./folios-reobtain.ts";
import { formFor } from "./forms.ts";
import type { Ambiente } from "./hosts.ts";
import { pageText, type SiiContext } from "./http.ts";

export interface GrantedFolios {
  folio_inicial: number;
  folio_final: number;
  fecha_autorizacion: string;
  cantidad: number;
  /** True when the file came from the SII's re-obtaining pages (the download failed, or the SII said the range was already authorized). */
  reobtenido: boolean;
  /** The CAF file exactly as the SII sent it (ISO-8859-1). */
  caf: Uint8Array<ArrayBuffer>;
}

export interface AnnulledFolios {
  glosa: string;
  folios_anulados: number;
}

const REFUSED = /no se autoriza/i;

function rejected(service: string, page: Page, message: string): ApiError {
  return new ApiError(502, "SII_GATEWAY_ERROR", message, {
    details: { service, sii_status: page.status, sii_message: pageText(page.text) },
  });
}

export async function requestFolios(
  ctx: SiiContext,
  jar: CookieJar,
  request: { emisor: string; tipo: number; cantidad: number; ambiente: Ambiente },
): Promise<GrantedFolios> {
  const [rut = "", dv = ""] = request.emisor.split("-");
  const refuse = (page: Page) =>
    new ApiError(400, "VALIDATION_ERROR", "The SII does not authorize these folios (NO SE AUTORIZA)", {
      details: { service: "caf_request", sii_message: pageText(page.text) },
    });
  await cgiStep(ctx, jar, cgiUrl(request.ambiente, "of_solicita_folios"), "caf_request");
  const first = await cgiStep(ctx, jar, cgiUrl(request.ambiente, "of_solicita_folios_dcto"), "caf_request", [
    ["RUT_EMP", rut],
    ["DV_EMP", dv],
    ["FOLIO_INICIAL", "0"],
    ["COD_DOCTO", String(request.tipo)],
    ["CANT_DOCTOS", ""],
  ]);
  if (REFUSED.test(first.text)) throw refuse(first);
  let fields = formFor(first.text, "of_confirma_folio", { CANT_DOCTOS: String(request.cantidad), ACEPTAR: "Solicitar Numeración" });
  if (!fields) throw rejected("caf_request", first, "The SII did not offer the stamping form");
  const limits = stampingLimits(fields);
  const max = limits.max_autor;
  if (max !== null && max > 0 && request.cantidad > max) {
    throw new ApiError(400, "VALIDATION_ERROR", `The SII authorizes at most ${max} folios of this type in one request`, {
      errors: [{ path: "cantidad", location: "path", message: `at most ${max} (the SII's MAX_AUTOR for this taxpayer and type)` }],
      details: limits,
    });
  }
  let confirm = await cgiStep(ctx, jar, cgiUrl(request.ambiente, "of_confirma_folio"), "caf_request", fields);
  // A first stamping (boletas above all) first asks to confirm the initial folio; the button is
  // "Confirmar Folio Inicial" (devlas-cl/dte-sii CafSolicitor.js `_processConfirmFolio`).
  const again = formFor(confirm.text, "of_confirma_folio", { ACEPTAR: "Confirmar Folio Inicial" });
  if (again && !formFor(confirm.text, "of_genera_folio"))
    confirm = await cgiStep(ctx, jar, cgiUrl(request.ambiente, "of_confirma_folio"), "caf_request", again);
  if (REFUSED.test(confirm.text)) throw refuse(confirm);
  // Every hidden input goes back as the page wrote it, CON_CREDITO and CON_AJUSTE included: devlas
  // (CafSolicitor.js, checked against the live SII) posts the page's inputs and adds none, and a
  // public PHP client reads both from the page too; the clients that hard-code 0 do so for
  // of_confirma_folio, whose page carries the same fields.
  fields = formFor(confirm.text, "of_genera_folio", { ACEPTAR: "Obtener Folios" });
  if (!fields) throw rejected("caf_request", confirm, "The SII did not confirm the stamping request");

  // Irreversible from here: the SII stamps the folios. The range asked for is the form's.
  const asked = rangeOf(fields, "caf_request");
  const stamped = (range: FolioRange): Stamped => ({ ...range, emisor: request.emisor, tipo: request.tipo, ambiente: request.ambiente });
  let granted: Page;
  try {
    granted = await cgiStep(ctx, jar, cgiUrl(request.ambiente, "of_genera_folio"), "caf_generate", fields);
  } catch (error) {
    // The answer was lost: the SII may have stamped the range or not. Only if its re-obtaining
    // list shows the range is it the caller's; never post the stamping again.
    return afterLostStamping(ctx, jar, stamped(asked), error);
  }
  if (REFUSED.test(granted.text)) throw refuse(granted);
  const already = alreadyAuthorized(pageText(granted.text, 2000));
  if (already !== undefined) {
    // The SII registered this stamping before (its earlier answer was lost): the range it names is
    // stamped, so its file is re-obtained instead of reporting folios not granted (devlas CafSolicitor.js).
    if (!already) throw rejected("caf_generate", granted, "The SII says the range was already authorized but does not say which");
    return grantedOf(await fileOfStamped(ctx, jar, stamped(already), null), already);
  }
  const download = formFor(granted.text, "of_genera_archivo", { ACEPTAR: "AQUI" });
  if (!download) throw rejected("caf_generate", granted, "The SII did not grant the folios");
  const range = rangeOf(download, "caf_generate");
  const url = cgiUrl(request.ambiente, "of_genera_archivo");
  return grantedOf(await fileOfStamped(ctx, jar, stamped(range), { url, fields: download, referer: granted.url }), range);
}

/** The answer for a range whose file was had. */
function grantedOf(file: { caf: string; reobtenido: boolean }, range: FolioRange): GrantedFolios {
  const fecha = elementText(file.caf, "FA") ?? "";
  return {
    folio_inicial: range.desde,
    folio_final: range.hasta,
    fecha_autorizacion: fecha,
    cantidad: range.hasta - range.desde + 1,
    reobtenido: file.reobtenido,
    caf: encodeLatin1(file.caf),
  };
}

/** The stamping's answer was lost: the range's file if the SII lists it for re-obtaining, else the error saying it may be stamped. */
async function afterLostStamping(ctx: SiiContext, jar: CookieJar, range: Stamped, error: unknown): Promise<GrantedFolios> {
  if (!(error instanceof ApiError) || error.status < 500) throw error;
  try {
    return grantedOf({ caf: await reobtain(ctx, jar, range), reobtenido: true }, range);
  } catch {
    error.message = `${error.message}. The stamping's answer was lost: the SII may have stamped folios ${range.desde}-${range.hasta}, which its re-obtaining list (${REOBTAIN_PAGE}) did not show; look there before requesting folios again`;
    throw error;
  }
}

export async function annulFolios(
  ctx: SiiContext,
  jar: CookieJar,
  request: { emisor: string; tipo: number; desde: number; hasta: number; ambiente: Ambiente },
): Promise<AnnulledFolios> {
  const [rut = "", dv = ""] = request.emisor.split("-");
  await cgiStep(ctx, jar, cgiUrl(request.ambiente, "af_anular1"), "caf_annul");
  const list = await cgiStep(ctx, jar, cgiUrl(request.ambiente, "af_anular2"), "caf_annul", [
    ["RUT_EMP", rut],
    ["DV_EMP", dv],
    ["PAGINA", "1"],
    ["COD_DOCTO", String(request.tipo)],
    ["ACEPTAR", "Consultar"],
  ]);
  const parent = rangeForms(list.text, "af_anular3", "caf_annul").find((r) => r.desde <= request.desde && r.hasta >= request.hasta);
  if (!parent && !/ANULACION DE FOLIOS/i.test(list.text)) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII did not answer with its list of folio ranges to annul", {
      details: { service: "caf_annul", sii_message: pageText(list.text) },
    });
  }
  if (!parent) {
    throw new ApiError(
      404,
      "HTTP_404",
      `No folio range of type ${request.tipo} stamped with this certificate contains ${request.desde}-${request.hasta}`,
      {
        details: { service: "caf_annul", sii_message: pageText(list.text) },
      },
    );
  }
  const confirm = await cgiStep(ctx, jar, cgiUrl(request.ambiente, "af_anular3"), "caf_annul", [...parent.fields, ["ACEPTAR", "Anular"]]);
  const fields = formFor(confirm.text, "af_anular", {
    FOLIO_INI_A: String(request.desde),
    FOLIO_FIN_A: String(request.hasta),
    MOTIVO: "Anulación solicitada por el contribuyente",
    ACEPTAR: "Anular Folios",
  });
  if (!fields) throw rejected("caf_annul", confirm, "The SII did not offer the annulment form");
  const done = await cgiStep(ctx, jar, cgiUrl(request.ambiente, "af_anular"), "caf_annul_confirm", fields);
  const text = pageText(done.text);
  if (/recepcionad/i.test(done.text)) {
    throw new ApiError(
      400,
      "VALIDATION_ERROR",
      "Some folios of the range were already used (received by the SII); annul those documents instead",
      {
        details: { service: "caf_annul_confirm", sii_message: text },
      },
    );
  }
  if (/anulad[oa]s? anteriormente/i.test(done.text)) {
    throw new ApiError(400, "VALIDATION_ERROR", "Some folios of the range were already annulled", {
      details: { service: "caf_annul_confirm", sii_message: text },
    });
  }
  if (!/autorizado la anulaci/i.test(done.text)) throw rejected("caf_annul_confirm", done, "The SII did not confirm the annulment");
  const count = Number(/anulaci[oó]n de (\d+) folios/i.exec(done.text)?.[1] ?? request.hasta - request.desde + 1);
  return { glosa: text, folios_anulados: count };
}
