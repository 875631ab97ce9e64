// What the SII's legacy /cvc_cgi/dte/ pages share (folio stamping, annulment, the certification
// process): latin1 forms with hidden inputs, the certificate session behind them and its refusals.
import type { Context } from "hono";
import { formDecodeLatin1, responseText } from "../lib/latin1.ts";
import { escapeXml } from "../lib/xml.ts";
import { latin1Html } from "./pages.ts";
import type { SandboxState } from "./state.ts";
import { mayActFor, sandboxTaxpayer } from "./taxpayers.ts";

export function hidden(fields: Record<string, string | number>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeXml(String(value))}">`)
    .join("\n");
}

export function page(title: string, body: string): Response {
  return latin1Html(`<h2>${title}</h2>${body}`);
}

/** Who opened the certificate session behind the request, or null (the caller then sees the login wall). */
export function holder(c: Context, state: SandboxState, now: number): string | null {
  const session = state.sessionOf(c.req.header("cookie"), now);
  return session?.kind === "cert" ? session.holder : null;
}

export function loginWall(c: Context): Response {
  const here = `https://${c.req.param("host")}${new URL(c.req.url).pathname.replace(/^\/[^/]+/, "")}`;
  return new Response(null, { status: 302, headers: { Location: `https://herculesr.sii.cl/cgi_AUT2000/CAutInicio.cgi?${here}` } });
}

export interface CgiContext {
  c: Context;
  state: SandboxState;
  now: number;
  ambiente: "0" | "1";
}

export async function form(c: Context): Promise<Map<string, string>> {
  return formDecodeLatin1(await responseText(c.req.raw));
}

/** Checks the session and that its holder may act for RUT_EMP; answers the SII's refusal otherwise. */
export function authorize(ctx: CgiContext, fields: Map<string, string>): { rut: string; holder: string } | Response {
  const who = holder(ctx.c, ctx.state, ctx.now);
  if (!who) return loginWall(ctx.c);
  const rut = `${fields.get("RUT_EMP") ?? ""}-${(fields.get("DV_EMP") ?? "").toUpperCase()}`;
  const taxpayer = sandboxTaxpayer(rut);
  if (!taxpayer || !mayActFor(who, rut)) {
    return page("ERROR", `<p>USUARIO ${who} NO AUTORIZADO PARA OPERAR CON EL CONTRIBUYENTE ${rut}.</p>`);
  }
  if (!taxpayer.dte_issuer) return page("ERROR", `<p>CONTRIBUYENTE ${rut} NO AUTORIZADO COMO EMISOR ELECTRONICO.</p>`);
  return { rut, holder: who };
}

/** The first page of the annulment and re-obtaining flows: the company and the document type to list ranges of. */
export function companyTypeQuery(ctx: CgiContext, title: string, next: string): Response {
  if (!holder(ctx.c, ctx.state, ctx.now)) return loginWall(ctx.c);
  return page(
    title,
    `<form method="POST" action="/cvc_cgi/dte/${next}"><input type="text" name="RUT_EMP"> - <input type="text" name="DV_EMP"><input type="hidden" name="PAGINA" value="1"><select name="COD_DOCTO"></select><input type="submit" name="ACEPTAR" value="Consultar"></form>`,
  );
}
