// Where each SII service lives, per ambiente (docs/sii-services.md §1): `0` production, `1` certification.
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
