// The intercambios operations: the SII's acceptance/claim web service, RegistroReclamoDTE
// (registroreclamodteservice, docs/sii-services.md §9): JAX-WS rpc/literal with the DTE
// token as a `TOKEN` cookie. Answers carry `codResp`/`descResp` (and events); the date query
// answers a bare string. An invalid token comes back as a SOAP fault, which is a TokenRejected.

import { ApiError } from "../lib/api-error.ts";
import { santiagoIso } from "../lib/dates.ts";
import { elementInner, elementsInner, elementText, escapeXml } from "../lib/xml.ts";
import type { Ambiente } from "./hosts.ts";
import { pageText, type SiiContext, siiFetch } from "./http.ts";
import { TokenRejected } from "./token.ts";

const NAMESPACE = "http://ws.registroreclamodte.diii.sdi.sii.cl";
const TOKEN_FAULT = /TOKEN invalido|Error de Autenticacion/i;
/** The service's one name, in errors and in the simulator's call counts and faults. */
const SERVICE = "reclamos";

export type IntercambiosOperation =
  | "ingresarAceptacionReclamoDoc"
  | "listarEventosHistDoc"
  | "consultarDocDteCedible"
  | "consultarFechaRecepcionSii";

export interface DocumentRef {
  /** Issuer RUT `XXXXXXXX-K`. */
  emisor: string;
  tipo: number;
  folio: number;
}

export interface IntercambiosAnswer {
  codResp: number;
  descResp: string;
  /** The `<return>` element's inner XML (events, or the bare date string). */
  xml: string;
}

export interface SiiEvent {
  codigo: string;
  descripcion: string;
  responsable: string;
  /** The SII's `DD-MM-YYYY HH:MM:SS` (Chile time). */
  fecha_sii: string;
}

function serviceUrl(ambiente: Ambiente): string {
  return ambiente === "1"
    ? "https://ws2.sii.cl/WSREGISTRORECLAMODTECERT/registroreclamodteservice"
    : "https://ws1.sii.cl/WSREGISTRORECLAMODTE/registroreclamodteservice";
}

function envelope(operation: IntercambiosOperation, ref: DocumentRef, accion?: string): string {
  const [rut, dv] = ref.emisor.split("-");
  const parts = `<rutEmisor>${rut}</rutEmisor><dvEmisor>${dv}</dvEmisor><tipoDoc>${ref.tipo}</tipoDoc><folio>${ref.folio}</folio>`;
  const action = accion === undefined ? "" : `<accionDoc>${escapeXml(accion)}</accionDoc>`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ws="${NAMESPACE}">` +
    `<soapenv:Header/><soapenv:Body><ws:${operation}>${parts}${action}</ws:${operation}></soapenv:Body></soapenv:Envelope>`
  );
}

/** One call of the service. Only queries may be retried (siiFetch); a token fault is thrown as TokenRejected. */
export async function intercambiosCall(
  ctx: SiiContext,
  ambiente: Ambiente,
  token: string,
  operation: IntercambiosOperation,
  ref: DocumentRef,
  accion?: string,
): Promise<IntercambiosAnswer> {
  const request = new Request(serviceUrl(ambiente), {
    method: "POST",
    headers: { "content-type": "text/xml; charset=utf-8", soapaction: '""', cookie: `TOKEN=${token}` },
    body: envelope(operation, ref, accion),
  });
  const service = SERVICE;
  let text: string;
  let status: number;
  try {
    ({ text, status } = await siiFetch(ctx, request, { service, read: operation !== "ingresarAceptacionReclamoDoc" }));
  } catch (err) {
    // The service answers a bad token with a SOAP fault over HTTP 500.
    const message = err instanceof ApiError ? (err.init.details as { sii_message?: unknown } | undefined)?.sii_message : undefined;
    if (typeof message === "string" && TOKEN_FAULT.test(message)) throw new TokenRejected(message);
    throw err;
  }
  if (status === 401 || status === 403) throw new TokenRejected(`HTTP ${status}`);
  const inner = elementInner(text, "return");
  if (inner === null) {
    const fault = elementText(text, "faultstring");
    if (fault && TOKEN_FAULT.test(fault)) throw new TokenRejected(fault);
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII answered something that is not its acceptance/claim service's answer", {
      details: { service, sii_status: status, sii_message: fault ?? pageText(text) },
    });
  }
  const code = elementText(inner, "codResp");
  return { codResp: code === null ? Number.NaN : Number(code), descResp: elementText(inner, "descResp") ?? "", xml: inner };
}

/** The events of a `listarEventosHistDoc` answer, in the SII's order. */
export function parseEvents(xml: string): SiiEvent[] {
  return elementsInner(xml, "listaEventosDoc").map((event) => ({
    codigo: elementText(event, "codEvento") ?? "",
    descripcion: elementText(event, "descEvento") ?? "",
    responsable: `${elementText(event, "rutResponsable") ?? ""}-${elementText(event, "dvResponsable") ?? ""}`,
    fecha_sii: elementText(event, "fechaEvento") ?? "",
  }));
}

/** `DD-MM-YYYY HH:MM:SS` (Chile time) → ISO 8601 with Chile's offset then, or null when it is not that. */
export function isoFromSii(value: string): string | null {
  const m = /^(\d{2})-(\d{2})-(\d{4}) (\d{2}):(\d{2}):(\d{2})$/.exec(value.trim());
  return m ? santiagoIso(`${m[3]}-${m[2]}-${m[1]}T${m[4]}:${m[5]}:${m[6]}`) : null;
}

/**
 * The codResp values that are not an answer about the document itself: the SII did not find it,
 * refused the caller, or failed. Each becomes the gateway's error with the SII's text.
 */
export function intercambiosFailure(answer: IntercambiosAnswer, ref: DocumentRef): ApiError | null {
  const details = { service: SERVICE, sii_codigo: answer.codResp, sii_message: answer.descResp };
  const doc = `document ${ref.tipo} ${ref.folio} of ${ref.emisor}`;
  switch (answer.codResp) {
    case 10:
    case 18:
      return new ApiError(404, "HTTP_404", `The SII has not received the ${doc}`, { details });
    case 14:
    case 17:
      return new ApiError(403, "AUTH_ERROR", `The certificate's holder may not act on the ${doc}`, { details });
    case 1:
    case 2:
    case 3: {
      const field = answer.codResp === 1 ? "emisor" : answer.codResp === 2 ? "folio" : "dte";
      return new ApiError(400, "VALIDATION_ERROR", `The SII refused ${field}: ${answer.descResp}`, {
        details,
        errors: [{ path: field, location: "path", message: answer.descResp }],
      });
    }
    case -1:
      return new ApiError(502, "SII_GATEWAY_ERROR", "The SII had an internal error; retry later", { details });
  }
  return Number.isNaN(answer.codResp) ? new ApiError(502, "SII_GATEWAY_ERROR", "The SII's answer has no codResp", { details }) : null;
}

function unexpected(answer: IntercambiosAnswer): ApiError {
  return new ApiError(502, "SII_GATEWAY_ERROR", `The SII answered an unexpected code ${answer.codResp}`, {
    details: { service: SERVICE, sii_codigo: answer.codResp, sii_message: answer.descResp },
  });
}

/** Assignable: 23 (accepted, no claims) and 25 (eight days without claims: tacit acceptance). */
const ASSIGNABLE = new Set([23, 25]);
const NOT_ASSIGNABLE = new Set([20, 21, 22, 24]);

/** Whether the document can be assigned (consultarDocDteCedible): `cedible` for codes 23 and 25. */
export async function docAssignability(
  ctx: SiiContext,
  ambiente: Ambiente,
  token: string,
  ref: DocumentRef,
): Promise<{ cedible: boolean; codigo: number; glosa: string }> {
  const answer = await intercambiosCall(ctx, ambiente, token, "consultarDocDteCedible", ref);
  const failure = intercambiosFailure(answer, ref);
  if (failure) throw failure;
  if (!ASSIGNABLE.has(answer.codResp) && !NOT_ASSIGNABLE.has(answer.codResp)) throw unexpected(answer);
  return { cedible: ASSIGNABLE.has(answer.codResp), codigo: answer.codResp, glosa: answer.descResp };
}

/** The document's events (listarEventosHistDoc), oldest first; code 16 is an empty history. */
export async function docEvents(
  ctx: SiiContext,
  ambiente: Ambiente,
  token: string,
  ref: DocumentRef,
): Promise<{ codigo: number; glosa: string; eventos: (SiiEvent & { fecha: string | null })[] }> {
  const answer = await intercambiosCall(ctx, ambiente, token, "listarEventosHistDoc", ref);
  const failure = intercambiosFailure(answer, ref);
  if (failure) throw failure;
  if (answer.codResp !== 15 && answer.codResp !== 16) throw unexpected(answer);
  const eventos = parseEvents(answer.xml).map((e) => ({ ...e, fecha: isoFromSii(e.fecha_sii) }));
  return { codigo: answer.codResp, glosa: answer.descResp, eventos };
}

/** When the SII received the document (consultarFechaRecepcionSii, a bare date); 404 when it has not. */
export async function docReceptionDate(
  ctx: SiiContext,
  ambiente: Ambiente,
  token: string,
  ref: DocumentRef,
): Promise<{ fecha_recepcion: string; fecha_recepcion_sii: string }> {
  const answer = await intercambiosCall(ctx, ambiente, token, "consultarFechaRecepcionSii", ref);
  const raw = answer.xml.trim();
  if (!raw) throw new ApiError(404, "HTTP_404", `The SII has not received the document ${ref.tipo} ${ref.folio} of ${ref.emisor}`);
  const iso = isoFromSii(raw);
  if (!iso) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII's reception date is not a date", {
      details: { service: SERVICE, sii_message: raw.slice(0, 200) },
    });
  }
  return { fecha_recepcion: iso, fecha_recepcion_sii: raw };
}

/** Claims (not ERM or ACD): the SII answers a repeated one with code 5 rather than 7. */
const CLAIMS = new Set(["RCD", "RFP", "RFT"]);

export type ResponseOutcome = "registrado" | "ya_registrado" | "rechazado" | "error";

/**
 * Registers the receiver's action on a document (ingresarAceptacionReclamoDoc; never retried):
 * 0 registered now; 7, 19 (and 5 for a claim) already registered; -1 or no code the SII failed;
 * any other code a refusal, with the SII's text.
 */
export async function docResponse(
  ctx: SiiContext,
  ambiente: Ambiente,
  token: string,
  ref: DocumentRef,
  accion: string,
): Promise<{ resultado: ResponseOutcome; codResp: number | null; descResp: string }> {
  const answer = await intercambiosCall(ctx, ambiente, token, "ingresarAceptacionReclamoDoc", ref, accion);
  const code = answer.codResp;
  const resultado: ResponseOutcome =
    code === 0
      ? "registrado"
      : code === 7 || code === 19 || (code === 5 && CLAIMS.has(accion))
        ? "ya_registrado"
        : code === -1 || Number.isNaN(code)
          ? "error"
          : "rechazado";
  return { resultado, codResp: Number.isNaN(code) ? null : code, descResp: answer.descResp };
}
