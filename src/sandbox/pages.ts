// The SII's own texts and page shapes that the simulator answers with (ISO-8859-1 HTML).
import { encodeLatin1 } from "../lib/latin1.ts";

export const MAINTENANCE_TEXT = "Por el momento no se puede responder a sus requerimientos. Por favor, inténtelo más tarde.";
export const SESSION_LIMIT_TEXT =
  "Estimado Contribuyente: Ud. ha superado el máximo de sesiones autenticadas permitidas. Por favor cierre alguna de sus sesiones o espere 30 minutos.";
export const WRONG_CLAVE_TEXT =
  "La Clave Tributaria ingresada no es correcta. Por favor, verifique que su teclado no tenga activada la tecla de mayúsculas.";
export const THROTTLE_TEXT = "Error 429: Ud. ha superado el límite de consultas permitidas. Intente nuevamente más tarde.";

export function latin1Html(body: string, status = 200, headers: Record<string, string> = {}): Response {
  const page = `<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><title>SII</title></head><body>${body}</body></html>`;
  return new Response(encodeLatin1(page), { status, headers: { "content-type": "text/html; charset=ISO-8859-1", ...headers } });
}

/** What the SII's clave applications show without a session: a link to log in. */
export function claveLoginWall(): Response {
  return latin1Html(
    '<p>Para continuar debe <a href="https://zeusr.sii.cl/AUT2000/InicioAutenticacion/IngresoRutClave.html">Ingresar Clave Tributaria</a>.</p>',
  );
}
