// zeusr.sii.cl as the SII shows it: the RUT + clave login page and form, and logout. Sessions
// are counted per RUT, so the "too many sessions" page appears as on the real SII.
import type { Context } from "hono";
import { randomBytes } from "../lib/crypto.ts";
import { formDecodeLatin1, responseText } from "../lib/latin1.ts";
import { latin1Html, SESSION_LIMIT_TEXT, WRONG_CLAVE_TEXT } from "./pages.ts";
import type { CertificateCheck } from "./soap.ts";
import { type SandboxState, sessionTokenOf } from "./state.ts";
import { representedBy, sandboxTaxpayer } from "./taxpayers.ts";

export const SESSION_TTL_MS = 2 * 60 * 60 * 1000;
/** Open sessions one RUT may have before the SII refuses more. */
export const MAX_SESSIONS_PER_RUT = 5;

function sessionToken(): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  return [...randomBytes(20)].map((b) => alphabet[b % alphabet.length]).join("");
}

export function loginPage(): Response {
  return latin1Html(
    '<form name="myform" method="post" action="/cgi_AUT2000/CAutInicio.cgi"><input type="text" name="rutcntr"><input type="password" name="clave"><input type="hidden" name="referencia"></form>',
    200,
    { "Set-Cookie": `AUT_WAF=${sessionToken()}; Path=/` },
  );
}

function openSessions(state: SandboxState, rut: string, now: number): number {
  for (const [token, session] of state.sessions) if (session.expiresAt <= now) state.sessions.delete(token);
  return [...state.sessions.values()].filter((s) => s.rut === rut).length;
}

/** Opens a session: the `.sii.cl` cookies the SII sets, then a redirect to the referencia. */
export function openSession(
  state: SandboxState,
  rut: string,
  kind: "clave" | "cert",
  referencia: string,
  now: number,
  holder = rut,
): Response {
  if (openSessions(state, rut, now) >= MAX_SESSIONS_PER_RUT) return latin1Html(`<p>${SESSION_LIMIT_TEXT}</p>`);
  const token = sessionToken();
  state.sessions.set(token, { rut, holder, kind, expiresAt: now + SESSION_TTL_MS });
  const [body, dv] = rut.split("-");
  const [holderBody, holderDv] = holder.split("-");
  const headers = new Headers({ Location: referencia || "https://misiir.sii.cl/cgi_misii/siihome.cgi" });
  // The certificate login answers with the NETSCAPE_LIVEWIRE.* family and RUT_NS/DV_NS only; TOKEN
  // and CSESSIONID come from consdcvinternetui/ (devlas-cl/dte-sii SiiPortalAuth.js). The clave
  // login sets them at once, as public clave-login clients read them. A session entered as a
  // represented company names it in rutm/dvm, as devlas's obtenerEmisor takes the company from
  // them; rut/dv and RUT_NS/DV_NS stay the holder's, the RUT that logged in, as in captured cookie
  // headers where all three agree (jsanbae/sii_api src/Endpoints/BHE.php). Which cookie the SII
  // really changes for a representative is inferred.
  const cookies =
    kind === "cert"
      ? [
          `NETSCAPE_LIVEWIRE.rut=${holderBody}`,
          `NETSCAPE_LIVEWIRE.dv=${holderDv}`,
          `NETSCAPE_LIVEWIRE.rutm=${body}`,
          `NETSCAPE_LIVEWIRE.dvm=${dv}`,
          `NETSCAPE_LIVEWIRE.clave=${livewireKey(state, token)}`,
          `RUT_NS=${holderBody}`,
          `DV_NS=${holderDv}`,
        ]
      : [...tokenCookies(state, token), `RUT_NS=${body}`, `DV_NS=${dv}`];
  for (const cookie of cookies) headers.append("Set-Cookie", `${cookie}; Domain=.sii.cl; Path=/`);
  return new Response(null, { status: 302, headers });
}

/** TOKEN and CSESSIONID (the same value, as captured sessions show), or CSESSIONID alone when the state asks for it. */
function tokenCookies(state: SandboxState, token: string): string[] {
  return state.csessionidOnly ? [`CSESSIONID=${token}`] : [`TOKEN=${token}`, `CSESSIONID=${token}`];
}

/** Certificate sessions waiting for their TOKEN: NETSCAPE_LIVEWIRE.clave → the session's token. */
const livewire = new WeakMap<SandboxState, Map<string, string>>();

function livewireKey(state: SandboxState, token: string): string {
  const key = sessionToken();
  const keys = livewire.get(state) ?? new Map<string, string>();
  livewire.set(state, keys);
  keys.set(key, token);
  return key;
}

/**
 * www4 consdcvinternetui/: the RCV application's page, which hands an open session its TOKEN and
 * CSESSIONID (same value, as captured requests show). Without a live session it is the login wall.
 */
export function consdcvToken(c: Context, state: SandboxState, now: number): Response {
  const cookie = c.req.header("cookie") ?? "";
  const key = /(?:^|;\s*)NETSCAPE_LIVEWIRE\.clave=([^;]+)/.exec(cookie)?.[1];
  const token = (key && livewire.get(state)?.get(key)) || sessionTokenOf(cookie);
  const session = token ? state.sessions.get(token) : undefined;
  if (!token || !session || session.expiresAt <= now) {
    const here = "https://www4.sii.cl/consdcvinternetui/";
    return new Response(null, {
      status: 302,
      headers: { Location: `https://zeusr.sii.cl/AUT2000/InicioAutenticacion/IngresoRutClave.html?${here}` },
    });
  }
  const headers = new Headers({ "content-type": "text/html; charset=UTF-8" });
  for (const cookie of tokenCookies(state, token)) headers.append("Set-Cookie", `${cookie}; Domain=.sii.cl; Path=/`);
  return new Response(
    '<!DOCTYPE html><html><head><title>Registro de Compras y Ventas</title></head><body><div id="app"></div></body></html>',
    {
      headers,
    },
  );
}

export async function claveLogin(c: Context, state: SandboxState, now: number): Promise<Response> {
  const form = formDecodeLatin1(await responseText(c.req.raw));
  const rut = `${form.get("rut") ?? ""}-${(form.get("dv") ?? "").toUpperCase()}`;
  const taxpayer = sandboxTaxpayer(rut);
  if (!taxpayer || taxpayer.clave !== form.get("clave")) return latin1Html(`<p class="error">${WRONG_CLAVE_TEXT}</p>`);
  return openSession(state, rut, "clave", form.get("referencia") ?? "", now);
}

/** Holders who also act as electronic representatives see this choice before their session opens. */
export const CHOOSE_TEXT = "ESCOJA COMO DESEA INGRESAR";

export const NO_CERTIFICATE_TEXT =
  "No se ha presentado un certificado digital. Para ingresar con certificado digital debe tenerlo instalado en su navegador.";
export const BAD_CERTIFICATE_TEXT = "El certificado digital presentado no es válido para autenticarse en el SII.";

/** herculesr.sii.cl: the login with the certificate presented over mutual TLS. */
export async function certificateLogin(
  c: Context<{ Bindings: { clientCertificatePem?: string } }>,
  state: SandboxState,
  now: number,
  checkCertificate: (certificateBase64: string) => Promise<CertificateCheck>,
): Promise<Response> {
  const pem = c.env.clientCertificatePem;
  const first = pem ? /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem)?.[1] : undefined;
  if (!first) return latin1Html(`<p class="error">${NO_CERTIFICATE_TEXT}</p>`);
  const check = await checkCertificate(first.replace(/\s+/g, ""));
  if (!check.ok) return latin1Html(`<p class="error">${BAD_CERTIFICATE_TEXT} (${check.reason})</p>`);
  const form = formDecodeLatin1(await responseText(c.req.raw));
  const referencia = form.get("referencia") ?? decodeURIComponent(new URL(c.req.url).search.slice(1));
  const represented = representedBy(check.rut);
  if (represented.length) {
    const ticket = sessionToken();
    state.pendingChoices.set(ticket, { holder: check.rut, referencia, expiresAt: now + 5 * 60 * 1000 });
    const links = represented
      .map((t) => {
        const [body, dv] = t.rut.split("-");
        return `<li><a href="/cgi_AUT2000/CAutRepresentacion.cgi?opcion=representado&amp;rut=${body}&amp;dv=${dv}&amp;ticket=${ticket}">${t.razon_social.toUpperCase()} ${t.rut}</a></li>`;
      })
      .join("");
    return latin1Html(
      `<h2>${CHOOSE_TEXT}</h2><p>Ingresar con su RUT personal:</p><a href="/cgi_AUT2000/CAutRepresentacion.cgi?opcion=personal&amp;ticket=${ticket}">Continuar</a>` +
        `<p>O como representante electrónico de:</p><ul>${links}</ul>`,
    );
  }
  return openSession(state, check.rut, "cert", referencia, now);
}

/** The representation choice: enter as oneself ("Continuar") or as a represented taxpayer. */
export function chooseRepresentation(c: Context, state: SandboxState, now: number): Response {
  const ticket = c.req.query("ticket") ?? "";
  const pending = state.pendingChoices.get(ticket);
  state.pendingChoices.delete(ticket);
  if (!pending || pending.expiresAt < now) return latin1Html(`<p class="error">${BAD_CERTIFICATE_TEXT}</p>`);
  if (c.req.query("opcion") !== "representado") return openSession(state, pending.holder, "cert", pending.referencia, now);
  const rut = `${c.req.query("rut") ?? ""}-${(c.req.query("dv") ?? "").toUpperCase()}`;
  if (!representedBy(pending.holder).some((t) => t.rut === rut)) return latin1Html(`<p class="error">${BAD_CERTIFICATE_TEXT}</p>`);
  return openSession(state, rut, "cert", pending.referencia, now, pending.holder);
}

export function logout(c: Context, state: SandboxState): Response {
  const token = sessionTokenOf(c.req.header("cookie"));
  if (token) state.sessions.delete(token);
  const headers = new Headers({ "content-type": "text/html; charset=ISO-8859-1" });
  headers.append("Set-Cookie", "TOKEN=; Domain=.sii.cl; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  return new Response(latin1Html("<p>Su sesi&oacute;n ha terminado.</p>").body, { headers });
}
