// The SII's web portal: the clave and certificate logins and logouts (zeusr, herculesr), the RCV
// application's token (www4), boletas de honorarios (loa), Mi SII (misiir), boletas de terceros (zeus).
import { certificateLogin, chooseRepresentation, claveLogin, consdcvToken, loginPage, logout } from "../auth.ts";
import { consultaBoletaPdf, presentaDatosEnvio } from "../bhe.ts";
import { bteAnnual, bteMenu } from "../bte.ts";
import { cViewCarta, siiHome } from "../contribuyentes.ts";
import type { RouteKit } from "./kit.ts";

export function registerPortalRoutes({ app, service, state, now, options }: RouteKit): void {
  app.get("/:host{zeusr\\.sii\\.cl}/AUT2000/InicioAutenticacion/IngresoRutClave.html", service("login_page", loginPage));
  app.post(
    "/:host{zeusr\\.sii\\.cl}/cgi_AUT2000/CAutInicio.cgi",
    service("clave_login", (c) => claveLogin(c, state, now())),
  );
  app.post(
    "/:host{herculesr\\.sii\\.cl}/cgi_AUT2000/CAutInicio.cgi",
    service("cert_login", (c) => certificateLogin(c, state, now(), options.checkCertificate)),
  );
  app.get(
    "/:host{herculesr\\.sii\\.cl}/cgi_AUT2000/CAutRepresentacion.cgi",
    service("cert_login", (c) => chooseRepresentation(c, state, now())),
  );
  // The RCV application's page: where an open certificate session gets its TOKEN.
  app.get(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/",
    service("session_token", (c) => consdcvToken(c, state, now())),
  );
  // Logout: a clave session at zeusr's autTermino.cgi, a certificate session at herculesr's autLogout.cgi
  // (devlas-cl/dte-sii SiiSession.js, SiiPortalAuth.js); herculesr's autTermino.cgi is not served.
  app.get(
    "/:host{zeusr\\.sii\\.cl}/cgi_AUT2000/autTermino.cgi",
    service("logout", (c) => logout(c, state)),
  );
  app.get(
    "/:host{herculesr\\.sii\\.cl}/cgi_AUT2000/autLogout.cgi",
    service("logout", (c) => logout(c, state)),
  );

  // Boletas de honorarios (loa).
  const loa = "/:host{loa\\.sii\\.cl}/cgi_IMT";
  app.get(
    `${loa}/TMBCOT_PresentaDatosEnvio.cgi`,
    service("bhe_email_form", (c) => presentaDatosEnvio(c, state, now())),
  );
  app.post(
    `${loa}/TMBCOT_ConsultaBoletaPdf.cgi`,
    service("bhe_email_send", (c) => consultaBoletaPdf(c, state, now())),
  );

  // Mi SII (misiir).
  const misii = "/:host{misiir\\.sii\\.cl}/cgi_misii";
  app.get(
    `${misii}/siihome.cgi`,
    service("misii_home", (c) => siiHome(c, state, now())),
  );
  app.post(
    `${misii}/CViewCarta.cgi`,
    service("misii_carta", (c) => cViewCarta(c, state, now())),
  );

  // Boletas de terceros (zeus).
  const zeus = "/:host{zeus\\.sii\\.cl}/cvc_cgi/bte";
  app.get(
    `${zeus}/bte_indiv_cons`,
    service("bte_menu", (c) => bteMenu(c, state, now())),
  );
  app.post(
    `${zeus}/bte_indiv_cons2`,
    service("bte_report", (c) => bteAnnual(c, state, now())),
  );
}
