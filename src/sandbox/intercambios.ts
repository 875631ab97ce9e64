// The intercambios operations' SII side: the acceptance/claim web service RegistroReclamoDTE
// (registroreclamodteservice, docs/sii-services.md §9): JAX-WS rpc/literal, the token as a `TOKEN` cookie, answers `<return>` with codResp/descResp. It acts on
// the documents the simulated SII has received, with the code tables of the SII's manual: actions
// only for 33/34/43, eight days to act after reception, claims and acceptances exclusive.
import type { Context } from "hono";
import { santiagoDateTime } from "../lib/dates.ts";
import { responseText } from "../lib/latin1.ts";
import { rutCheckDigit } from "../lib/rut.ts";
import { elementText, escapeXml } from "../lib/xml.ts";
import type { DocumentEvent, ReceivedDocument } from "./records.ts";
import { soapOperation } from "./soap.ts";
import type { SandboxState } from "./state.ts";
import { mayActFor } from "./taxpayers.ts";

export type { DocumentEvent, ReceivedDocument } from "./records.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const NAMESPACE = "http://ws.registroreclamodte.diii.sdi.sii.cl";
/** Document types that take acceptance or claim (and may be assigned). */
const ACTIONABLE_TYPES = new Set([33, 34, 43]);
const CLAIMS = new Set(["RCD", "RFP", "RFT"]);
const ACTIONS: Record<string, string> = {
  ERM: "Otorga Recibo de Mercaderías o Servicios",
  ACD: "Acepta Contenido del Documento",
  RCD: "Reclamo al Contenido del Documento",
  RFP: "Reclamo por Falta Parcial de Mercaderías",
  RFT: "Reclamo por Falta Total de Mercaderías",
};

export function receivedKey(ambiente: string, emisor: string, tipo: number, folio: number): string {
  return `${ambiente}|${emisor}|${tipo}|${folio}`;
}

const withDv = (body: string) => `${body}-${rutCheckDigit(body)}`;
/** A supplier of the sandbox company, and a customer of it; neither is a sandbox taxpayer. */
export const SANDBOX_SUPPLIER = withDv("77123456");
export const SANDBOX_CUSTOMER = withDv("78654321");

/**
 * Documents the sandbox company has received and issued, in both ambientes, each in a state
 * the code tables distinguish (the folio says which, see docs/sandbox.md).
 */
export function seedReceivedDocuments(state: SandboxState, now: number): void {
  const company = "76192083-9";
  const seeds: [string, string, number, number, number, DocumentEvent[]][] = [
    // emisor, receptor, tipo, folio, days since reception, events
    [SANDBOX_SUPPLIER, company, 33, 1001, 2, []],
    [SANDBOX_SUPPLIER, company, 33, 1002, 20, []],
    [SANDBOX_SUPPLIER, company, 33, 1003, 3, [{ codigo: "ERM", responsable: company, at: now - 2 * DAY_MS }]],
    [SANDBOX_SUPPLIER, company, 34, 2001, 1, [{ codigo: "RCD", responsable: company, at: now - DAY_MS / 2 }]],
    [SANDBOX_SUPPLIER, company, 61, 3001, 4, []],
    [company, SANDBOX_CUSTOMER, 33, 5001, 5, [{ codigo: "ACD", responsable: SANDBOX_CUSTOMER, at: now - 4 * DAY_MS }]],
  ];
  for (const ambiente of ["0", "1"]) {
    for (const [emisor, receptor, tipo, folio, days, events] of seeds) {
      const document = { emisor, receptor, tipo, folio, recibido: now - days * DAY_MS, events: events.map((e) => ({ ...e })) };
      state.received.set(receivedKey(ambiente, emisor, tipo, folio), document);
    }
  }
}

/** `DD-MM-YYYY HH:MM:SS` in Chile's time, as the service writes dates. */
function siiDateTime(at: number): string {
  const [date = "", time = ""] = santiagoDateTime(new Date(at)).split(" ");
  return `${date.split("-").reverse().join("-")} ${time}`;
}

function envelope(operation: string, inner: string): Response {
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?><S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body>' +
    `<ns2:${operation}Response xmlns:ns2="${NAMESPACE}"><return>${inner}</return></ns2:${operation}Response></S:Body></S:Envelope>`;
  return new Response(xml, { headers: { "content-type": "text/xml; charset=utf-8" } });
}

function fault(message: string): Response {
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?><S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><S:Fault>' +
    `<faultcode>S:Server</faultcode><faultstring>${escapeXml(message)}</faultstring></S:Fault></S:Body></S:Envelope>`;
  return new Response(xml, { status: 500, headers: { "content-type": "text/xml; charset=utf-8" } });
}

const GLOSAS: Record<number, string> = {
  0: "Acción Completada OK",
  1: "Error en Rut Emisor",
  2: "Error en Folio",
  3: "Tipo de documento no corresponde",
  4: "Acción no válida",
  5: "Documento ya se encuentra reclamado",
  6: "No se puede otorgar recibo de mercaderías a un documento reclamado",
  7: "Evento registrado previamente",
  8: "Pasados 8 días desde la recepción no es posible registrar reclamos o eventos",
  11: "No se puede reclamar un documento aceptado",
  12: "No se puede aceptar un documento rechazado",
  13: "No se puede reclamar un documento con acuse de recibo de mercaderías",
  14: "Acción autorizada sólo para la empresa receptora o emisora del documento",
  15: "Listado de eventos del documento",
  16: "Documento no tiene eventos de reclamos o acuse de recibo",
  17: "Acción autorizada sólo para la empresa receptora del documento",
  18: "Documento no ha sido recibido por el SII",
  20: "Tipo de documento no es cedible",
  22: "Documento no cedible: no tiene registro de reclamo ni acuse de recibo y no han pasado 8 días",
  23: "Documento cedible: tiene acuse de recibo y no tiene reclamos",
  24: "Documento no cedible: tiene reclamos",
  25: "Documento cedible: han pasado 8 días sin reclamos (acuse de recibo tácito)",
};

function respuestaTo(codResp: number, rutToken: string, events = ""): string {
  return `<codResp>${codResp}</codResp><descResp>${escapeXml(GLOSAS[codResp] ?? "")}</descResp>${events}<rutToken>${rutToken}</rutToken>`;
}

function eventList(document: ReceivedDocument): string {
  return document.events
    .map((e) => {
      const [rut, dv] = e.responsable.split("-");
      return (
        `<listaEventosDoc><codEvento>${e.codigo}</codEvento><descEvento>${escapeXml(ACTIONS[e.codigo] ?? "")}</descEvento>` +
        `<rutResponsable>${rut}</rutResponsable><dvResponsable>${dv}</dvResponsable><fechaEvento>${siiDateTime(e.at)}</fechaEvento></listaEventosDoc>`
      );
    })
    .join("");
}

/** The codResp of registering `accion` on a document (0 when it may be registered). */
function actionOutcome(document: ReceivedDocument, accion: string, holder: string, now: number): number {
  if (!ACTIONS[accion]) return 4;
  if (!mayActFor(holder, document.receptor)) return 17;
  const codes = new Set(document.events.map((e) => e.codigo));
  if (codes.has(accion)) return 7;
  const claimed = [...codes].some((code) => CLAIMS.has(code));
  if (CLAIMS.has(accion)) {
    if (claimed) return 5;
    if (codes.has("ACD")) return 11;
    if (codes.has("ERM") && accion !== "RCD") return 13;
  } else if (claimed) {
    return accion === "ERM" ? 6 : 12;
  }
  if (now - document.recibido > 8 * DAY_MS) return 8;
  return 0;
}

/** consultarDocDteCedible: assignable once accepted, or tacitly after eight days without claims. */
function assignability(document: ReceivedDocument, now: number): number {
  const codes = document.events.map((e) => e.codigo);
  if (codes.some((code) => CLAIMS.has(code))) return 24;
  if (codes.includes("ERM") || codes.includes("ACD")) return 23;
  return now - document.recibido > 8 * DAY_MS ? 25 : 22;
}

export async function registroReclamo(c: Context, state: SandboxState, now: number, ambiente: "0" | "1"): Promise<Response> {
  const token = /(?:^|;\s*)TOKEN=([^;]+)/.exec(c.req.header("cookie") ?? "")?.[1];
  const issued = token ? state.tokens.get(token) : undefined;
  if (!issued || issued.expiresAt < now || issued.ambiente !== ambiente) return fault("Error de Autenticacion: TOKEN invalido");

  const xml = await responseText(c.req.raw);
  const operation = soapOperation(xml);
  const field = (name: string) => (elementText(xml, name) ?? "").trim();
  const rutBody = field("rutEmisor");
  const dv = field("dvEmisor").toUpperCase();
  const tipo = Number(field("tipoDoc"));
  const folio = Number(field("folio"));
  const holder = issued.rut;
  const [rutToken] = holder.split("-");
  const answer = (code: number, events = "") => envelope(operation ?? "", respuestaTo(code, rutToken ?? "", events));

  if (operation === "getVersion") return envelope("getVersion", "1.2");
  if (
    operation !== "ingresarAceptacionReclamoDoc" &&
    operation !== "listarEventosHistDoc" &&
    operation !== "consultarDocDteCedible" &&
    operation !== "consultarFechaRecepcionSii"
  ) {
    return fault(`Cannot find dispatch method for {${NAMESPACE}}${operation ?? ""}`);
  }
  const emisorValid = /^\d{1,8}$/.test(rutBody) && rutCheckDigit(rutBody) === dv;
  const document = state.received.get(receivedKey(ambiente, `${rutBody}-${dv}`, tipo, folio));

  if (operation === "consultarFechaRecepcionSii") {
    return envelope(operation, document ? siiDateTime(document.recibido) : "");
  }
  if (!emisorValid) return answer(1);
  if (!Number.isInteger(folio) || folio <= 0) return answer(2);
  if (!document) return answer(18);
  const party = mayActFor(holder, document.receptor) || mayActFor(holder, document.emisor);

  switch (operation) {
    case "ingresarAceptacionReclamoDoc": {
      if (!ACTIONABLE_TYPES.has(tipo)) return answer(3);
      const accion = field("accionDoc").toUpperCase();
      const code = actionOutcome(document, accion, holder, now);
      if (code === 0) document.events.push({ codigo: accion, responsable: document.receptor, at: now });
      return answer(code);
    }
    case "listarEventosHistDoc":
      if (!party) return answer(14);
      return document.events.length ? answer(15, eventList(document)) : answer(16);
    case "consultarDocDteCedible":
      if (!party) return answer(14);
      return answer(ACTIONABLE_TYPES.has(tipo) ? assignability(document, now) : 20);
  }
}
