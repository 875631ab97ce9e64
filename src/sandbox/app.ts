// The built-in SII simulator. Requests arrive with the real SII URLs; the host picks which SII
// application answers. Every service counts its calls and honours switched-on faults first.

import type { Context } from "hono";
import { Hono } from "hono";
import { decodeLatin1, encodeLatin1, responseText } from "../lib/latin1.ts";
import { certificateLogin, chooseRepresentation, claveLogin, consdcvToken, loginPage, logout } from "./auth.ts";
import { consultaBoletaPdf, presentaDatosEnvio, SANDBOX_BHE } from "./bhe.ts";
import { bteAnnual, bteMenu, sandboxBte } from "./bte.ts";
import { CERTIFICATION_ROUTES } from "./certificacion.ts";
import { cViewCarta, siiHome } from "./contribuyentes.ts";
import type { CgiContext } from "./cvc-cgi.ts";
import { dteUpload, queryEstDteAv, queryEstUp, seedEnvios } from "./envios.ts";
import { boletaEnvio, boletaEstado, boletaSeed, boletaToken } from "./envios-boleta.ts";
import {
  anular,
  anular1,
  anular2,
  anular3,
  confirmaFolio,
  generaArchivo,
  generaFolio,
  solicitaFolios,
  solicitaFoliosDcto,
} from "./folios.ts";
import { correccionPage, impuestoSegundaPage, ufYearPage } from "./indicadores.ts";
import { registroReclamo, seedReceivedDocuments } from "./intercambios.ts";
import { latin1Html, MAINTENANCE_TEXT, SESSION_LIMIT_TEXT, THROTTLE_TEXT } from "./pages.ts";
import { getCtrlAsync, getDetalle, getDetalleExport, getResumen, obtenerArchivoBlob } from "./rcv.ts";
import { cambiaTipoCompra, eliminarResumen, ingresarBoletasDiarias, ingresarResumen, obtieneListaBoletasMes } from "./rcv-writes.ts";
import { RoughSchedule } from "./rough.ts";
import { type CertificateCheck, issueSeed, issueToken, soapFault, soapOperation } from "./soap.ts";
import { type FaultKind, SandboxState } from "./state.ts";
import { appraisalFile, DEFAULT_VEHICLE_ROWS, type WorkbookKind } from "./vehiculos.ts";

export interface SandboxOptions {
  now?: () => number;
  /** Checks a certificate presented to the SII: issued by the sandbox CA, valid, with a RUT. */
  checkCertificate: (certificateBase64: string) => Promise<CertificateCheck>;
  /** How long a `timeout` fault keeps a request hanging (the client's timeout should fire first). */
  hangMs?: number;
  /** Rows of the light-vehicle appraisal workbook (the heavy one has an eighth as many). */
  vehicleRows?: number;
  /** The rough schedule's seed (rough.ts); null or absent: the tidy sandbox. */
  roughSeed?: number | null;
}

export interface Sandbox {
  readonly state: SandboxState;
  /** `clientCertificate`: what a TLS client would present to the SII (the certificate login). */
  fetch(request: Request, tls?: { clientCertificatePem?: string }): Promise<Response>;
  /** The service names it answers, sorted (what faults and replays name). */
  services(): string[];
  /** The service a request to the SII's URL would reach, or null; nothing is counted or answered. */
  serviceOf(request: Request): Promise<string | null>;
}

/** `identify`: only name the service that would answer (see `serviceOf`). */
type Env = { Bindings: { clientCertificatePem?: string; identify?: boolean } };

type ServiceHandler = (c: Context<Env>) => Response | Promise<Response>;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** Carries the service name a request would reach, when the sandbox is only asked which one. */
const SERVICE_NAME = "x-sandbox-service";

/** Marks a response the sandbox's fetch turns into a dropped connection. */
const RESET = "x-sandbox-connection-reset";

/**
 * An answer that says it is gzip and is not: the gzip header (magic bytes, deflate, no flags),
 * then a deflate block of the reserved type, which no inflater accepts.
 */
const NOT_GZIP = new Uint8Array([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

async function faultResponse(fault: Exclude<FaultKind, "truncated" | "charset">, hangMs: number, signal: AbortSignal): Promise<Response> {
  switch (fault) {
    case "reset":
      return new Response(null, { headers: { [RESET]: "1" } });
    case "maintenance":
      return latin1Html(`<p>${MAINTENANCE_TEXT}</p>`);
    case "throttle":
      return latin1Html(`<h1>${THROTTLE_TEXT}</h1>`, 429, { "Retry-After": "60" });
    case "session_limit":
      return latin1Html(`<p>${SESSION_LIMIT_TEXT}</p>`);
    case "html":
      return latin1Html("<h1>Servicio no disponible</h1><p>Error inesperado.</p>");
    case "http_5xx":
      return latin1Html("<h1>Error 500</h1>", 500);
    case "timeout":
      await sleep(hangMs, signal);
      return latin1Html("<h1>Gateway Timeout</h1>", 504);
    case "bad_gzip":
      return new Response(NOT_GZIP, { headers: { "content-type": "application/octet-stream", "content-encoding": "gzip" } });
  }
}

export function createSandbox(options: SandboxOptions): Sandbox {
  const state = new SandboxState();
  if (options.roughSeed != null) state.rough = new RoughSchedule(options.roughSeed);
  state.bhe.push(...SANDBOX_BHE.map((slip) => ({ ...slip })));
  state.bte.push(...sandboxBte());
  const now = options.now ?? Date.now;
  seedReceivedDocuments(state, now());
  seedEnvios(state, now());
  const hangMs = options.hangMs ?? 120_000;
  const app = new Hono<Env>();

  const names = new Set<string>();
  /** Registers one SII service: counted, given a recorded answer or a fault if one is queued, then answered. */
  const service = (name: string, handler: ServiceHandler) => {
    names.add(name);
    return (c: Context<Env>) => (c.env?.identify ? new Response(null, { headers: { [SERVICE_NAME]: name } }) : serve(name, handler, c));
  };
  const serve = async (name: string, handler: ServiceHandler, c: Context<Env>) => {
    state.count(name);
    // A recorded answer (POST /sandbox/v1/replays) stands in for the simulator's own, byte for byte.
    const replay = state.takeReplay(name);
    if (replay) return replay;
    const fault = state.takeFault(name, c.req.param("host") ?? "");
    if (fault === "truncated") {
      // The real answer, cut in the middle (a connection that closed early).
      const res = await handler(c);
      const bytes = await res.arrayBuffer();
      const headers = new Headers(res.headers);
      headers.delete("content-length");
      return new Response(bytes.slice(0, Math.floor(bytes.byteLength / 2)), { status: res.status, headers });
    }
    if (fault === "charset") {
      // The real answer with the other charset than the one it declares (latin1 ⇄ UTF-8); a
      // binary file (a workbook) has no charset to get wrong.
      const res = await handler(c);
      if (!/^text\/|json|[/+]xml(;|$)/i.test(res.headers.get("content-type") ?? "")) return res;
      const bytes = new Uint8Array(await res.arrayBuffer());
      const declaredUtf8 = /utf-8|json/i.test(res.headers.get("content-type") ?? "");
      const swapped = declaredUtf8 ? encodeLatin1(new TextDecoder().decode(bytes)) : new TextEncoder().encode(decodeLatin1(bytes));
      const headers = new Headers(res.headers);
      headers.delete("content-length");
      return new Response(swapped, { status: res.status, headers });
    }
    if (fault) return faultResponse(fault, hangMs, c.req.raw.signal);
    const rough = state.rough;
    if (!rough) return handler(c);
    rough.beforeCall(name, c.req.raw, state.sessions, now());
    const transient = await rough.transient(name, c.req.raw, state);
    return transient ?? rough.quirk(name, await handler(c));
  };

  const soapHosts = "{palena\\.sii\\.cl|maullin\\.sii\\.cl}";
  const ambienteOf = (c: Context<Env>) => (c.req.param("host") === "maullin.sii.cl" ? "1" : "0");

  app.post(
    `/:host${soapHosts}/DTEWS/CrSeed.jws`,
    service("seed", async (c) => {
      const operation = soapOperation(await responseText(c.req.raw));
      if (operation !== "getSeed") return soapFault(`No such operation '${operation ?? ""}'`);
      return issueSeed(state, ambienteOf(c), now());
    }),
  );
  // What clients fetch to see the service is there (the proxy test does).
  app.get(
    `/:host${soapHosts}/DTEWS/CrSeed.jws`,
    service(
      "seed_wsdl",
      () =>
        new Response(
          '<?xml version="1.0" encoding="UTF-8"?><wsdl:definitions targetNamespace="http://DefaultNamespace" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"><wsdl:service name="CrSeedService"/></wsdl:definitions>',
          { headers: { "content-type": "text/xml; charset=utf-8" } },
        ),
    ),
  );
  app.post(
    `/:host${soapHosts}/DTEWS/GetTokenFromSeed.jws`,
    service("token", async (c) => {
      const xml = await responseText(c.req.raw);
      if (soapOperation(xml) !== "getToken") return soapFault(`No such operation '${soapOperation(xml) ?? ""}'`);
      return issueToken(state, ambienteOf(c), xml, now(), options.checkCertificate);
    }),
  );

  app.post(
    `/:host${soapHosts}/DTEWS/QueryEstUp.jws`,
    service("envio_status", async (c) => {
      const xml = await responseText(c.req.raw);
      if (soapOperation(xml) !== "getEstUp") return soapFault(`No such operation '${soapOperation(xml) ?? ""}'`);
      return queryEstUp(state, xml, ambienteOf(c), now());
    }),
  );

  app.post(
    `/:host${soapHosts}/DTEWS/services/QueryEstDteAv`,
    service("document_status", async (c) => {
      const xml = await responseText(c.req.raw);
      if (soapOperation(xml) !== "getEstDteAv") return soapFault(`No such operation '${soapOperation(xml) ?? ""}'`);
      return queryEstDteAv(state, xml, ambienteOf(c), now());
    }),
  );
  app.post(
    `/:host${soapHosts}/cgi_dte/UPL/DTEUpload`,
    service("dte_upload", (c) => dteUpload(c, state, ambienteOf(c), now())),
  );

  // The boleta REST service: seed, token and status on api/apicert, the upload on rahue/pangal.
  const boletaApi = "/:host{api\\.sii\\.cl|apicert\\.sii\\.cl}/recursos/v1";
  const boletaAmbiente = (c: Context<Env>) => (["apicert.sii.cl", "pangal.sii.cl"].includes(c.req.param("host") ?? "") ? "1" : "0");
  app.get(
    `${boletaApi}/boleta.electronica.semilla`,
    service("boleta_seed", (c) => boletaSeed(state, boletaAmbiente(c), now())),
  );
  app.post(
    `${boletaApi}/boleta.electronica.token`,
    service("boleta_token", (c) => boletaToken(c, state, boletaAmbiente(c), now(), options.checkCertificate)),
  );
  app.get(
    `${boletaApi}/boleta.electronica.envio/:ref`,
    service("boleta_status", (c) => boletaEstado(c, state, boletaAmbiente(c), now())),
  );
  app.post(
    "/:host{rahue\\.sii\\.cl|pangal\\.sii\\.cl}/recursos/v1/boleta.electronica.envio",
    service("boleta_upload", (c) => boletaEnvio(c, state, boletaAmbiente(c), now())),
  );

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

  // Folio stamping and annulment (palena / maullin).
  const folios = (handler: (ctx: CgiContext) => Response | Promise<Response>) => (c: Context<Env>) =>
    handler({ c, state, now: now(), ambiente: ambienteOf(c) });
  const cgi = `/:host${soapHosts}/cvc_cgi/dte`;
  app.get(`${cgi}/of_solicita_folios`, service("caf_request", folios(solicitaFolios)));
  app.post(`${cgi}/of_solicita_folios_dcto`, service("caf_request", folios(solicitaFoliosDcto)));
  app.post(`${cgi}/of_confirma_folio`, service("caf_request", folios(confirmaFolio)));
  app.post(`${cgi}/of_genera_folio`, service("caf_generate", folios(generaFolio)));
  app.post(`${cgi}/of_genera_archivo`, service("caf_download", folios(generaArchivo)));
  app.get(`${cgi}/af_anular1`, service("caf_annul", folios(anular1)));
  app.post(`${cgi}/af_anular2`, service("caf_annul", folios(anular2)));
  app.post(`${cgi}/af_anular3`, service("caf_annul", folios(anular3)));
  app.post(`${cgi}/af_anular`, service("caf_annul_confirm", folios(anular)));

  // The certification process (maullin's CGIs) and the boleta certification application (www4).
  for (const route of CERTIFICATION_ROUTES) app[route.method](route.path, service(route.service, folios(route.handler)));

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

  // The RCV facade (www4).
  app.post(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/getResumen",
    service("rcv_resumen", (c) => getResumen(c, state, now())),
  );
  app.post(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/getDetalleCompra",
    service("rcv_detalle", (c) => getDetalle(c, state, now(), "COMPRA")),
  );
  app.post(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/getDetalleVenta",
    service("rcv_detalle", (c) => getDetalle(c, state, now(), "VENTA")),
  );
  // The purchase type change (public: devlas-cl/dte-sii SiiPortalAuth.js cambiarTipoCompra).
  app.post(
    "/:host{www4\\.sii\\.cl}/complementoscvui/services/data/facadeServiceCompCompraService/cambiaTipoCompra",
    service("rcv_write", (c) => cambiaTipoCompra(c, state, now())),
  );
  // The daily receipts: the read is public, the write inferred (see src/sii/rcv-inferred.ts).
  app.post(
    "/:host{www4\\.sii\\.cl}/complementoscvui/services/data/facadeServiceBoletasDiarias/obtieneListaBoletasMes",
    service("rcv_boletas", (c) => obtieneListaBoletasMes(c, state, now())),
  );
  app.post(
    "/:host{www4\\.sii\\.cl}/complementoscvui/services/data/facadeServiceBoletasDiarias/ingresarDetalleBoletasDiarias",
    service("rcv_write", (c) => ingresarBoletasDiarias(c, state, now())),
  );
  // The sales summaries (inferred contract, see src/sii/rcv-inferred.ts).
  for (const [method, handler] of [
    ["ingresarResumenVenta", ingresarResumen],
    ["eliminarResumenVenta", eliminarResumen],
  ] as const) {
    app.post(
      `/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/${method}`,
      service("rcv_write", (c) => handler(c, state, now())),
    );
  }
  app.post(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/getCtrlAsync",
    service("rcv_async", (c) => getCtrlAsync(c, state, now())),
  );
  app.get(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/obtenerArchivoBLOB/:blob/:rutUsuario/:rutEmisor/:caId",
    service("rcv_blob", (c) => obtenerArchivoBlob(c, state, now())),
  );
  app.post(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/getDetalleCompraExport",
    service("rcv_export", (c) => getDetalleExport(c, state, now(), "COMPRA")),
  );
  app.post(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/getDetalleVentaExport",
    service("rcv_export", (c) => getDetalleExport(c, state, now(), "VENTA")),
  );

  // Acceptance and claims of received documents (ws1 production, ws2 certification).
  app.post(
    "/:host{ws1\\.sii\\.cl}/WSREGISTRORECLAMODTE/registroreclamodteservice",
    service("reclamos", (c) => registroReclamo(c, state, now(), "0")),
  );
  app.post(
    "/:host{ws2\\.sii\\.cl}/WSREGISTRORECLAMODTECERT/registroreclamodteservice",
    service("reclamos", (c) => registroReclamo(c, state, now(), "1")),
  );

  // Public indicator pages (www).
  const www = "/:host{www\\.sii\\.cl}/valores_y_fechas";
  const yearOf = (c: Context<Env>) => Number(/(\d{4})/.exec(c.req.param("page") ?? "")?.[1]);
  app.get(
    `${www}/uf/:page{uf\\d{4}\\.htm}`,
    service("indicadores", (c) => ufYearPage(yearOf(c), new Date(now()))),
  );
  app.get(
    `${www}/correccion_monetaria/:page{correccion\\d{4}\\.htm}`,
    service("indicadores", (c) => correccionPage(yearOf(c), new Date(now()))),
  );
  app.get(
    `${www}/impuesto_2da_categoria/:page{impuesto\\d{4}\\.htm}`,
    service("indicadores", (c) => impuestoSegundaPage(yearOf(c), new Date(now()))),
  );

  // The yearly appraisal workbooks of light and heavy vehicles (www).
  app.get(
    "/:host{www\\.sii\\.cl}/servicios_online/tasacion_fiscal_vehiculos/:file{(?:liv|pes)\\d{4}\\.xlsx}",
    service("vehiculos", (c) => {
      const file = c.req.param("file") ?? "";
      const kind = file.slice(0, 3) as WorkbookKind;
      return appraisalFile(kind, Number(file.slice(3, 7)), options.vehicleRows ?? DEFAULT_VEHICLE_ROWS, new Date(now()));
    }),
  );

  app.notFound(() => latin1Html("<h1>Not Found</h1><p>The requested URL was not found on this server.</p>", 404));

  // Route on host + path: `https://palena.sii.cl/DTEWS/CrSeed.jws` → `/palena.sii.cl/DTEWS/CrSeed.jws`.
  const routed = (request: Request) => {
    const url = new URL(request.url);
    return new Request(`http://sandbox/${url.hostname}${url.pathname}${url.search}`, request);
  };
  const sorted = [...names].sort();
  return {
    state,
    async fetch(request, tls) {
      const res = await app.fetch(routed(request), { clientCertificatePem: tls?.clientCertificatePem });
      if (res.headers.has(RESET)) throw new TypeError("fetch failed", { cause: new Error("read ECONNRESET") });
      return res;
    },
    services: () => [...sorted],
    async serviceOf(request) {
      const res = await app.fetch(routed(request), { identify: true });
      return res.headers.get(SERVICE_NAME);
    },
  };
}
