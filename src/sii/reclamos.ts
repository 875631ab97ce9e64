// The SII's acceptance/claim web service (sii-upstream §9): JAX-WS rpc/literal with the DTE
// token as a `TOKEN` cookie. Answers carry `codResp`/`descResp` (and events); the date query
// answers a bare string. An invalid token comes back as a SOAP fault, which is a TokenRejected.
import { santiagoIso } from "../lib/dates.ts";
import { elementInner, elementsInner, elementText, escapeXml } from "../lib/xml.ts";
import { ApiError } from "../platform/errors.ts";
import type { Ambiente } from "./hosts.ts";
import { pageText, type SiiContext, siiFetch } from "./http.ts";
import { TokenRejected } from "./token.ts";

const NAMESPACE = "http://ws.registroreclamodte.diii.sdi.sii.cl";
const TOKEN_FAULT = /TOKEN invalido|Error de Autenticacion/i;

export type ReclamosOperation =
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

export interface ReclamosAnswer {
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

function envelope(operation: ReclamosOperation, ref: DocumentRef, accion?: string): string {
  const [rut, dv] = ref.emisor.split("-");
  const parts = `<rutEmisor>${rut}</rutEmisor><dvEmisor>${dv}</dvEmisor><tipoDoc>${ref.tipo}</tipoDoc><folio>${ref.folio}</folio>`;
  const action = accion === undefined ? "" : `<accionDoc>${escapeXml(accion)}</accionDoc>`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ws="${NAMESPACE}">` +
    `<soapenv:Header/><soapenv:Body><ws:${operation}>${parts}${action}</ws:${operation}></soapenv:Body></soapenv:Envelope>`
  );
}

/** One call of the service. Only queries may be retried (siiFetch); a token fault is thrown as TokenRejected. */
export async function reclamosCall(
  ctx: SiiContext,
  ambiente: Ambiente,
  token: string,
  operation: ReclamosOperation,
  ref: DocumentRef,
  accion?: string,
): Promise<ReclamosAnswer> {
  const request = new Request(serviceUrl(ambiente), {
    method: "POST",
    headers: { "content-type": "text/xml; charset=utf-8", soapaction: '""', cookie: `TOKEN=${token}` },
    body: envelope(operation, ref, accion),
  });
  const service = `reclamos_${operation}`;
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
