// The software-certification process at the SII's certification environment (sii-upstream §12),
// inside a certificate session: the application (pe_ingrut → pe_datos_empresa → pe_confirma), a
// new test set (pe_generar → pe_generar1), the progress of each set (pe_avance1) and the
// company's data there (ad_empresa2). Field names beyond those the research saw are inferred.
import { ApiError } from "../platform/errors.ts";
import { cgiStep, cgiUrl } from "./cgi.ts";
import type { CookieJar } from "./cookies.ts";
import { formFor } from "./forms.ts";
import { tableRows } from "./html.ts";
import { pageText, type SiiContext } from "./http.ts";

const ALREADY = /ya se encuentra postulada/i;
const NOT_IN_PROCESS = /no se encuentra postulada|no ha sido posible/i;

function fail(service: string, text: string, message: string, status: 400 | 404 | 409 | 502 = 502): ApiError {
  const code =
    status === 502 ? "SII_GATEWAY_ERROR" : status === 409 ? "ALREADY_SUBMITTED" : status === 404 ? "HTTP_404" : "VALIDATION_ERROR";
  return new ApiError(status, code, message, { details: { service, sii_message: pageText(text) } });
}

const company = (rut: string): [string, string][] => {
  const [body = "", dv = ""] = rut.split("-");
  return [
    ["RUT_EMP", body],
    ["DV_EMP", dv],
  ];
};

export interface Application {
  contribuyente: string;
  email: string;
  software: string;
  documentos: string[];
}

/** Applies the company to the certification process; a company already in it is a 409 with the SII's text. */
export async function applyForCertification(ctx: SiiContext, jar: CookieJar, request: Application): Promise<{ glosa: string }> {
  const service = "certification_apply";
  await cgiStep(ctx, jar, cgiUrl("1", "pe_ingrut"), service);
  const data = await cgiStep(ctx, jar, cgiUrl("1", "pe_datos_empresa"), service, [
    ...company(request.contribuyente),
    ["ACEPTAR", "Continuar"],
  ]);
  if (ALREADY.test(data.text)) throw fail(service, data.text, `${request.contribuyente} is already in the certification process`, 409);
  const checked = Object.fromEntries(request.documentos.map((d) => [d, "S"]));
  const fields = formFor(data.text, "pe_confirma", { EMAIL: request.email, SOFTWARE: request.software, ...checked });
  if (!fields) throw fail(service, data.text, "The SII did not show the application form");
  const done = await cgiStep(ctx, jar, cgiUrl("1", "pe_confirma"), service, fields);
  if (!/postulacion ha sido ingresada/i.test(done.text)) throw fail(service, done.text, "The SII did not take the application", 400);
  return { glosa: pageText(done.text) };
}

/** Asks for a new test set; the SII answers it as a text file (ISO-8859-1). */
export async function requestTestSet(ctx: SiiContext, jar: CookieJar, contribuyente: string): Promise<string> {
  const service = "certification_set";
  await cgiStep(ctx, jar, cgiUrl("1", "pe_generar"), service);
  const page = await cgiStep(ctx, jar, cgiUrl("1", "pe_generar1"), service, [
    ...company(contribuyente),
    ["CODIGO", "2"],
    ["ACEPTAR", "Confirmar Empresa"],
  ]);
  const contentType = page.headers.get("content-type") ?? "";
  if (NOT_IN_PROCESS.test(page.text))
    throw fail(service, page.text, `The SII gives no test set: ${contribuyente} is not in the certification process`, 404);
  if (!/text\/plain|octet-stream/i.test(contentType) || !/NUMERO DE ATENCI/i.test(page.text)) {
    throw fail(service, page.text, "The SII did not answer with a test set");
  }
  return page.text;
}

export interface SetProgress {
  set: string;
  numero_atencion: string;
  estado: string;
  track_id: string | null;
  observaciones: string | null;
}

/** Each set's state (POR REALIZAR, EN REVISION, REVISADO CONFORME, or rejected with the SII's reason). */
export async function certificationProgress(ctx: SiiContext, jar: CookieJar, contribuyente: string): Promise<SetProgress[]> {
  const service = "certification_progress";
  const page = await cgiStep(ctx, jar, cgiUrl("1", "pe_avance1"), service, company(contribuyente));
  if (/no se encuentra postulada/i.test(page.text))
    throw fail(service, page.text, `${contribuyente} is not in the certification process`, 404);
  // Data rows name a set and carry its state (the header row says ESTADO).
  const rows = tableRows(page.text).filter((row) => /^SET\s/i.test((row[0] ?? "").trim()) && !/^ESTADO$/i.test((row[2] ?? "").trim()));
  if (!/AVANCE/i.test(page.text)) throw fail(service, page.text, "The SII did not answer with the progress page");
  return rows.map((row) => ({
    set: (row[0] ?? "").trim(),
    numero_atencion: (row[1] ?? "").trim(),
    estado: (row[2] ?? "").trim(),
    track_id: (row[3] ?? "").trim() || null,
    observaciones: (row[4] ?? "").trim() || null,
  }));
}

export interface CertificationData {
  rut: string;
  razon_social: string;
  resolucion: { numero: number; fecha: string | null };
  emails: { contacto_sii: string | null; intercambio: string | null };
  software: string | null;
  estado: string;
}

/** The company as the certification environment has it (resolution 0 and its date, e-mails, software). */
export async function certificationData(ctx: SiiContext, jar: CookieJar, contribuyente: string): Promise<CertificationData> {
  const service = "certification_data";
  const page = await cgiStep(ctx, jar, cgiUrl("1", "ad_empresa2"), service, company(contribuyente));
  const cells = new Map(tableRows(page.text).map((row) => [(row[0] ?? "").trim().toUpperCase(), (row[1] ?? "").trim()]));
  if (!cells.has("RUT")) throw fail(service, page.text, "The SII did not answer with the company's data");
  const value = (label: string) => cells.get(label.toUpperCase()) || null;
  return {
    rut: value("RUT") ?? contribuyente,
    razon_social: value("Razon Social") ?? "",
    resolucion: { numero: Number(value("Numero Resolucion") ?? 0), fecha: value("Fecha Resolucion") },
    emails: { contacto_sii: value("Correo Contacto SII"), intercambio: value("Correo Intercambio") },
    software: value("Software"),
    estado: value("Estado") ?? "",
  };
}

/** The sandbox's stand-in for the SII's browser-only boleta set application. */
export async function requestBoletaTestSet(ctx: SiiContext, jar: CookieJar, contribuyente: string): Promise<string> {
  const service = "certification_boleta_set";
  const page = await cgiStep(ctx, jar, "https://www4.sii.cl/certBolElectDteInternet/sandbox/set", service, company(contribuyente));
  if (/habilitado en el ambiente/i.test(page.text))
    throw fail(service, page.text, `${contribuyente} is not in the certification process`, 404);
  if (!/NUMERO DE ATENCI/i.test(page.text)) throw fail(service, page.text, "The SII did not answer with a test set");
  return page.text;
}
