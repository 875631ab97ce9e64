// Web logins (docs/sii-services.md §2.3, §2.4): RUT + clave on zeusr, and logout. Every failure page the
// SII shows is mapped: wrong clave → 400 AUTH_ERROR; maintenance → 503; too many sessions → 429.

import { ApiError } from "../lib/api-error.ts";
import { formEncodeLatin1 } from "../lib/latin1.ts";
import { unescapeXml } from "../lib/xml.ts";
import type { ClientCertificate } from "../ports/transport.ts";
import { browse } from "./browse.ts";
import { CookieJar } from "./cookies.ts";
import { siiHosts } from "./hosts.ts";
import { pageText, type SiiContext } from "./http.ts";

const WRONG_CLAVE = /clave tributaria ingresada no es correcta|rut o clave incorrect/i;
/** Where a session lands when the caller has no particular application in mind. */
export const DEFAULT_REFERENCIA = "https://misiir.sii.cl/cgi_misii/siihome.cgi";

export interface ClaveCredential {
  rut: string; // canonical XXXXXXXX-K
  clave: string;
}

export async function claveLogin(
  ctx: SiiContext,
  credential: ClaveCredential,
  referencia = DEFAULT_REFERENCIA,
  now?: () => number,
): Promise<CookieJar> {
  const host = siiHosts("0").claveLogin;
  const [body = "", dv = ""] = credential.rut.split("-");
  const jar = new CookieJar(now);
  const start = `https://${host}/AUT2000/InicioAutenticacion/IngresoRutClave.html?${referencia}`;
  // The login page seeds the anti-bot cookies the form post needs.
  await browse(ctx, jar, start, { service: "clave_login", read: true });
  const page = await browse(
    ctx,
    jar,
    `https://${host}/cgi_AUT2000/CAutInicio.cgi`,
    { service: "clave_login", read: false },
    {
      method: "POST",
      form: formEncodeLatin1([
        ["rut", body],
        ["dv", dv],
        ["rutcntr", credential.rut],
        ["clave", credential.clave],
        ["referencia", referencia],
        ["411", ""],
      ]),
      headers: { origin: `https://${host}`, referer: start },
      // The session cookies are set here; the application the login leads to is the caller's business.
      sameHostOnly: true,
    },
  );
  if (WRONG_CLAVE.test(page.text)) {
    throw new ApiError(400, "AUTH_ERROR", "The SII refused the RUT and clave", {
      details: { service: "clave_login", sii_message: pageText(page.text) },
    });
  }
  await requireSession(ctx, jar, page, "clave_login", "The SII login did not open a session");
  return jar;
}

const CHOOSE = /escoja como desea ingresar/i;
const NO_CERTIFICATE = /no se ha presentado un certificado|certificado digital presentado no es v[áa]lido/i;

/** The login with the taxpayer's certificate presented over mutual TLS (herculesr). */
export interface CertificateLoginOptions {
  referencia?: string;
  now?: () => number;
  /** Enter as this taxpayer, which the holder represents electronically (default: as the holder). */
  actingFor?: string;
}

export async function certificateLogin(
  ctx: SiiContext,
  certificate: ClientCertificate,
  options: CertificateLoginOptions = {},
): Promise<CookieJar> {
  const { referencia = DEFAULT_REFERENCIA, now, actingFor } = options;
  const host = siiHosts("0").certLogin;
  const jar = new CookieJar(now);
  let page = await browse(
    ctx,
    jar,
    `https://${host}/cgi_AUT2000/CAutInicio.cgi?${referencia}`,
    { service: "cert_login", read: false, clientCertificate: certificate },
    { method: "POST", form: formEncodeLatin1([["referencia", referencia]]), sameHostOnly: true },
  );
  // Electronic representatives are asked how to enter: "Continuar" as the holder, or a link per
  // represented taxpayer.
  if (CHOOSE.test(page.text)) {
    const links = [...page.text.matchAll(/<a\s[^>]*href="([^"]+)"[^>]*>([\s\S]*?)<\/a>/gi)];
    const wanted = actingFor
      ? links.find(([, , label = ""]) => label.includes(actingFor))
      : links.find(([, , label = ""]) => /^\s*Continuar\s*$/i.test(label));
    if (!wanted?.[1]) {
      const whom = actingFor ?? "the holder";
      throw new ApiError(403, "AUTH_ERROR", `The certificate cannot enter the SII as ${whom}`, {
        details: { service: "cert_login", sii_message: pageText(page.text) },
      });
    }
    const next = new URL(unescapeXml(wanted[1]), page.url).toString();
    page = await browse(ctx, jar, next, { service: "cert_login", read: false, clientCertificate: certificate }, { sameHostOnly: true });
  }
  if (NO_CERTIFICATE.test(page.text)) {
    throw new ApiError(400, "AUTH_ERROR", "The SII did not accept the certificate for login", {
      details: { service: "cert_login", sii_message: pageText(page.text) },
    });
  }
  await requireSession(ctx, jar, page, "cert_login", "The SII certificate login did not open a session");
  const entered = enteredAs(jar);
  if (actingFor && !entered.includes(actingFor)) {
    throw new ApiError(
      403,
      "AUTH_ERROR",
      `The certificate's holder ${entered.join(" / ")} is not an electronic representative of ${actingFor}`,
      {
        details: { service: "cert_login" },
      },
    );
  }
  return jar;
}

/**
 * The taxpayers a web session names in its cookies. devlas-cl/dte-sii SiiPortalAuth.js
 * (obtenerEmisor) takes the company from `NETSCAPE_LIVEWIRE.rutm`/`dvm` before `.rut`/`.dv`, so a
 * session entered as a represented company names it there; captured cookie headers of personal
 * sessions (jsanbae/sii_api src/Endpoints/BHE.php) carry the same RUT in rut, rutm and RUT_NS, so
 * they cannot tell which names the company. Which cookie the SII changes for a representative is
 * not verified (inferred), so the session entered as `actingFor` when any of them names it; the
 * SII itself refuses a company the holder does not represent.
 */
export function enteredAs(jar: CookieJar): string[] {
  const pairs: [string, string][] = [
    ["NETSCAPE_LIVEWIRE.rutm", "NETSCAPE_LIVEWIRE.dvm"],
    ["RUT_NS", "DV_NS"],
    ["NETSCAPE_LIVEWIRE.rut", "NETSCAPE_LIVEWIRE.dv"],
  ];
  const ruts = pairs.flatMap(([rut, dv]) => {
    const body = jar.get(rut);
    return body ? [`${body}-${(jar.get(dv) ?? "").toUpperCase()}`] : [];
  });
  return [...new Set(ruts)];
}

/**
 * The web session's token, the `conversationId` the JSON applications (RCV, consemitidos) expect:
 * `TOKEN`, or `CSESSIONID` when the SII set only that (devlas-cl/dte-sii SiiPortalAuth.js reads
 * `TOKEN || CSESSIONID`, "el TOKEN es el mismo valor que CSESSIONID"; jsanbae/sii_api
 * src/Endpoints/BHE.php keeps CSESSIONID alone). Null when the session has neither.
 */
export function webSessionToken(jar: CookieJar): string | null {
  return jar.get("TOKEN") || jar.get("CSESSIONID") || null;
}

/**
 * Closes a web session: the SII limits open sessions per RUT. A clave session at zeusr's autTermino.cgi
 * (the SII's own menu script links zeus.sii.cl/cgi_AUT2000/autTermino.cgi; public clients use zeusr); a
 * certificate session at herculesr's autLogout.cgi (devlas-cl/dte-sii SiiSession.js `logout` and
 * SiiPortalAuth.js `closeAllSessions`). Other public clients GET herculesr's autTermino.cgi instead: which
 * of the two the SII honours is not verified. The answer is not read.
 */
export async function logout(ctx: SiiContext, jar: CookieJar, kind: "clave" | "cert" = "clave"): Promise<void> {
  const hosts = siiHosts("0");
  const url =
    kind === "cert" ? `https://${hosts.certLogin}/cgi_AUT2000/autLogout.cgi` : `https://${hosts.claveLogin}/cgi_AUT2000/autTermino.cgi`;
  await browse(ctx, jar, url, { service: "logout", read: false });
}

/** Where the web applications' TOKEN/CSESSIONID cookies are handed out once a session is open. */
const TOKEN_PAGE = "https://www4.sii.cl/consdcvinternetui/";
const TOKEN_SERVICE = "session_token";

/**
 * A login opened a session when the SII set its `NETSCAPE_LIVEWIRE.*` or `RUT_NS` cookies
 * (devlas-cl/dte-sii SiiPortalAuth.js `_autenticarNuevo` accepts NETSCAPE_LIVEWIRE.*; captured
 * cookie sets show RUT_NS/DV_NS beside them). The TOKEN the web applications need may come only
 * later: public clients then GET consdcvinternetui/ and read TOKEN or CSESSIONID (same file,
 * `_obtenerTokenPortalCV`). No session cookie at all, or no token after that page, is a failure. A
 * login that set CSESSIONID without TOKEN has its token already (webSessionToken).
 */
async function requireSession(
  ctx: SiiContext,
  jar: CookieJar,
  page: { status: number; text: string },
  service: string,
  message: string,
): Promise<void> {
  if (webSessionToken(jar)) return;
  const opened = jar.toJSON().some((c) => c.name.startsWith("NETSCAPE_LIVEWIRE.") || c.name === "RUT_NS");
  if (!opened) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", `${message} (no NETSCAPE_LIVEWIRE, RUT_NS or TOKEN cookie)`, {
      details: { service, sii_status: page.status, sii_message: pageText(page.text) },
    });
  }
  // The token page is a service of its own (the simulator counts and faults it as session_token).
  const tokenPage = await browse(ctx, jar, TOKEN_PAGE, { service: TOKEN_SERVICE, read: true });
  if (!webSessionToken(jar)) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", `${message}: the session opened but consdcvinternetui/ gave no TOKEN or CSESSIONID`, {
      details: { service: TOKEN_SERVICE, sii_status: tokenPage.status, sii_message: pageText(tokenPage.text) },
    });
  }
}
