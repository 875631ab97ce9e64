// SOAP without a SOAP stack (docs/sii-services.md §2.1): hand-built RPC envelopes, and answers parsed by
// local name, whose `…Return` holds an escaped `SII:RESPUESTA` document.

import { ApiError } from "../lib/api-error.ts";
import { elementText, escapeXml } from "../lib/xml.ts";
import { pageText, type SiiContext, siiFetch } from "./http.ts";

export interface Respuesta {
  estado: string;
  glosa: string | null;
  /** The whole inner document, for reading its RESP_BODY fields. */
  xml: string;
}

export function soapEnvelope(operation: string, params: [string, string][] = []): string {
  const args = params.map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`).join("");
  return (
    '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/">' +
    `<soapenv:Body><${operation}>${args}</${operation}></soapenv:Body></soapenv:Envelope>`
  );
}

export interface SoapRequest {
  url: string;
  operation: string;
  params?: [string, string][];
  service: string;
  read: boolean;
  cookie?: string;
}

export async function soapCall(ctx: SiiContext, call: SoapRequest): Promise<Respuesta> {
  const headers: Record<string, string> = { "content-type": "text/xml; charset=utf-8", soapaction: '""' };
  if (call.cookie) headers.cookie = call.cookie;
  const answer = await siiFetch(ctx, new Request(call.url, { method: "POST", headers, body: soapEnvelope(call.operation, call.params) }), {
    service: call.service,
    read: call.read,
  });
  const inner = elementText(answer.text, `${call.operation}Return`);
  if (inner === null) {
    const fault = elementText(answer.text, "faultstring");
    throw new ApiError(
      502,
      "SII_GATEWAY_ERROR",
      fault ? "The SII answered with a SOAP fault" : "The SII answered something that is not its SOAP answer",
      {
        details: {
          service: call.service,
          sii_status: answer.status,
          sii_message: fault ?? (pageText(answer.text) || answer.text.slice(0, 300)),
        },
      },
    );
  }
  return { estado: elementText(inner, "ESTADO") ?? "", glosa: elementText(inner, "GLOSA"), xml: inner };
}
