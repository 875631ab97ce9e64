// Where each SII service lives, per ambiente (docs/sii-services.md §1): `0` production, `1` certification.
// Hosts: docs/sii-services.md §1 (LibreDTE libredte-lib-core
// src/Package/Billing/Component/Integration/Enum/SiiEnvironment.php for palena/maullin, ws1/ws2
// and api/apicert; Odoo addons/l10n_cl_edi/models/l10n_cl_edi_util.py for rahue/pangal;
// jsanbae/sii_api src/Endpoints/Auth.php for zeusr; crilam/mcp-sii src/scrapers for misiir, loa,
// zeus and www).
export type Ambiente = "0" | "1";

export function siiHosts(ambiente: Ambiente) {
  const cert = ambiente === "1";
  return {
    /** SOAP web services (seed, token, status queries) and the DTE upload CGI. */
    dte: cert ? "maullin.sii.cl" : "palena.sii.cl",
    /** Web login with RUT + clave (same host for both ambientes). */
    claveLogin: "zeusr.sii.cl",
    /** Web login with the taxpayer's certificate over mutual TLS (same host for both ambientes). */
    certLogin: "herculesr.sii.cl",
    /** The boleta REST service: seed, token and status. */
    boletaApi: cert ? "apicert.sii.cl" : "api.sii.cl",
    /** The boleta REST service's upload. */
    boletaUpload: cert ? "pangal.sii.cl" : "rahue.sii.cl",
  };
}

/**
 * Every SII host the gateway talks to, both ambientes: the one list the deep health check probes
 * (src/services/health.ts) and a test holds every `*.sii.cl` host named in src/sii/ to.
 */
export const SII_HOSTS: readonly string[] = [
  siiHosts("0").dte,
  siiHosts("1").dte,
  siiHosts("0").claveLogin,
  siiHosts("0").certLogin,
  // The web applications read without the SOAP services: RCV, BHE/BTE, MiSII, indicadores, vehiculos.
  "www4.sii.cl",
  "misiir.sii.cl",
  "loa.sii.cl",
  "zeus.sii.cl",
  "www.sii.cl",
  // The reclamos web service (ws1 production, ws2 certification).
  "ws1.sii.cl",
  "ws2.sii.cl",
  siiHosts("0").boletaApi,
  siiHosts("1").boletaApi,
  siiHosts("0").boletaUpload,
  siiHosts("1").boletaUpload,
];
