// The boleta test set from the SII's GWT-RPC application certBolElectDteInternet (docs/sii-services.md
// §12), inside a certificate session, as devlas-cl/dte-sii cert/CertRunner.js drives it.

import { ApiError } from "../lib/api-error.ts";
import { rutCheckDigit, splitRut } from "../lib/rut.ts";
import { BROWSER_UA } from "./browse.ts";
import type { CookieJar } from "./cookies.ts";
import { pageText, type SiiAnswer, type SiiContext, siiFetch } from "./http.ts";
import { SessionExpired } from "./sessions.ts";

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
  const [holderBody] = splitRut(holder);
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
  const [rut, dv] = splitRut(contribuyente);
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
  const [repBody, repDv] = splitRut(representative);
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
