// BHE (boletas de honorarios) at loa.sii.cl, inside a clave session (docs/sii-services.md §5.3).

import { ApiError } from "../lib/api-error.ts";
import { formEncodeLatin1 } from "../lib/latin1.ts";
import { browse, type Page } from "./browse.ts";
import type { CookieJar } from "./cookies.ts";
import { formFor } from "./forms.ts";
import { decodeHtml, parsePage, visibleText } from "./html.ts";
import { pageText, type SiiContext } from "./http.ts";
import { SessionExpired } from "./sessions.ts";

const LOA = "https://loa.sii.cl/cgi_IMT";
export const LOGIN_MARKERS = /IngresoRutClave|Ingresar Clave Tributaria|CAutInicio/i;
const NO_SUCH_BHE = /No existe la boleta/i;
const FAILED = /\bno (se|fue|pudo|ha)\b|error|problema|rechaz/i;

export interface BheResent {
  mensaje: string;
  destinatario: string;
  nombre_receptor: string;
  nro_boleta: string;
}

/** A value the page assigns in one of its scripts: `xml_values['name'] = "value";` (JavaScript, read as such). */
export function jsValue(html: string, name: string): string | null {
  const pattern = new RegExp(`xml_values\\['${name}'\\]\\s*=\\s*"([^"]*)"`);
  for (const script of Array.from(parsePage(html).querySelectorAll("script"))) {
    const match = pattern.exec(script.textContent ?? "");
    if (match?.[1] !== undefined) return decodeHtml(match[1]);
  }
  return null;
}

/** A login page or a redirect instead of the page asked for: the session is gone. */
function checked(page: Page): Page {
  if (LOGIN_MARKERS.test(page.text) || (page.status >= 300 && page.status < 400)) throw new SessionExpired();
  return page;
}

export async function resendBhe(ctx: SiiContext, jar: CookieJar, request: { codigo: string; email: string }): Promise<BheResent> {
  const query = new URLSearchParams({ txt_codigobarras: request.codigo, veroriginal: "si", origen: "CUARTO", enviar: "si" });
  const form = checked(await browse(ctx, jar, `${LOA}/TMBCOT_PresentaDatosEnvio.cgi?${query}`, { service: "bhe_email_form", read: true }));
  const fields = formFor(form.text, "TMBCOT_ConsultaBoletaPdf.cgi", { txt_email: request.email });
  if (!fields?.some(([name]) => name === "txt_email")) {
    // Only the SII's own business page says the slip does not exist; anything else is a failure.
    const details = { service: "bhe_email_form", sii_message: pageText(form.text) };
    if (NO_SUCH_BHE.test(form.text)) {
      throw new ApiError(404, "HTTP_404", `The SII has no issued BHE with code ${request.codigo} for this taxpayer`, { details });
    }
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII did not answer with the BHE e-mail form", { details });
  }
  const sent = checked(
    await browse(
      ctx,
      jar,
      `${LOA}/TMBCOT_ConsultaBoletaPdf.cgi`,
      { service: "bhe_email_send", read: false },
      { method: "POST", form: formEncodeLatin1(fields) },
    ),
  );
  const mensaje = visibleText(parsePage(sent.text));
  if (!/enviad/i.test(sent.text) || FAILED.test(mensaje)) {
    const invalidEmail = /correo[^.]*no es v[áa]lido/i.test(mensaje);
    throw new ApiError(invalidEmail ? 400 : 502, invalidEmail ? "VALIDATION_ERROR" : "SII_GATEWAY_ERROR", "The SII did not send the BHE", {
      details: { service: "bhe_email_send", sii_message: mensaje },
    });
  }
  return {
    mensaje,
    destinatario: request.email,
    nombre_receptor: jsValue(form.text, "nombre_receptor") ?? "",
    nro_boleta: jsValue(form.text, "nro_boleta") ?? "",
  };
}
