// The RCV's JSON facade at www4.sii.cl (docs/sii-services.md §7): an envelope whose conversationId is the
// session TOKEN, answers whose respEstado says how it went, HTML when the session is gone. The
// transport only: what the answers hold is read in rcv-rows.ts, rcv-csv.ts and rcv-async.ts.

import { ApiError } from "../lib/api-error.ts";
import { JsonObjectReader, JsonStreamError } from "../lib/json-object-reader.ts";
import { decodeAs } from "../lib/latin1.ts";
import type { CookieJar } from "./cookies.ts";
import { checkSiiPage, pageText, readWithin, type SiiContext, siiFetch, siiOpen } from "./http.ts";
import { SessionExpired } from "./sessions.ts";

/** The RCV web application: where the clave login lands before its facade is called. */
export const RCV_APP = "https://www4.sii.cl/consdcvinternetui/";
export const FACADE = `${RCV_APP}services/data/facadeService`;
const NAMESPACE = "cl.sii.sdi.lob.diii.consdcv.data.api.interfaces.FacadeService";

export type FacadeAnswer = Record<string, unknown> & { respEstado?: { codRespuesta?: number; msgeRespuesta?: string | null } };

/**
 * The service each SII method is named by in errors (`details.service`) and in the simulator's
 * call counts and faults: one name per service everywhere.
 */
const SERVICES: Record<string, string> = {
  getResumen: "rcv_resumen",
  getDetalleCompra: "rcv_detalle",
  getDetalleVenta: "rcv_detalle",
  getDetalleCompraExport: "rcv_export",
  getDetalleVentaExport: "rcv_export",
  getCtrlAsync: "rcv_async",
  obtenerArchivoBLOB: "rcv_blob",
  obtieneListaBoletasMes: "rcv_boletas",
  cambiaTipoCompra: "rcv_write",
};
/** A method not listed is one of the writes (the inferred ones of rcv-inferred.ts). */
export const rcvService = (method: string): string => SERVICES[method] ?? "rcv_write";

/**
 * The session's id as the facade's conversationId: TOKEN, or CSESSIONID when the SII set only that
 * (the two carry the same value in captured sessions; devlas-cl/dte-sii `SiiPortalAuth.js` takes
 * `TOKEN || CSESSIONID`, and login.ts accepts a session with either).
 */
export const conversationId = (jar: CookieJar): string => jar.get("TOKEN") ?? jar.get("CSESSIONID") ?? "";

/** The facade's envelope around `data`: the session TOKEN as conversationId. */
function facadeRequest(jar: CookieJar, method: string, data: Record<string, unknown>): Request {
  const url = `${FACADE}/${method}`;
  const body = JSON.stringify({
    metaData: {
      namespace: `${NAMESPACE}/${method}`,
      conversationId: conversationId(jar),
      transactionId: crypto.randomUUID(),
      page: null,
    },
    data,
  });
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/plain, */*",
    origin: "https://www4.sii.cl",
    referer: "https://www4.sii.cl/consdcvinternetui/",
    cookie: jar.header(url),
  };
  return new Request(url, { method: "POST", headers, body });
}

/** Calls a facade method; codRespuesta 0, 1 and 3 (no documents) are answers, the rest errors. */
export async function rcvCall(ctx: SiiContext, jar: CookieJar, method: string, data: Record<string, unknown>): Promise<FacadeAnswer> {
  const request = facadeRequest(jar, method, data);
  const answer = await siiFetch(ctx, request, { service: rcvService(method), read: true });
  jar.store(request.url, answer.headers);
  let json: FacadeAnswer;
  try {
    json = JSON.parse(answer.text) as FacadeAnswer;
  } catch {
    // The facade answers its login page as HTML when the session is not (or no longer) valid.
    throw new SessionExpired(pageText(answer.text) || answer.text.slice(0, 300));
  }
  return checkFacadeAnswer(json, method, answer.text);
}

// The complements at www4.sii.cl/complementoscvui: the facade's envelope with each service's own
// path and namespace, the same session TOKEN as conversationId, `page` {pageSize:1, pageIndex:1}
// (devlas-cl/dte-sii `SiiPortalAuth.js` `_callComplementoscvui`, from a portal capture; the daily
// receipts' read, `obtieneListaBoletasMes`, in tomasleblancu/fizko
// `backend/app/integrations/sii/extractors/dtes.py`).
const COMPLEMENTOS = "https://www4.sii.cl/complementoscvui/services/data";
export const COMPRAS_SERVICE = {
  path: `${COMPLEMENTOS}/facadeServiceCompCompraService`,
  namespace: "cl.sii.sdi.lob.diii.dcv.data.api.interfaces.compcompra.FacadeServiceCompCompra",
};
export const BOLETAS_SERVICE = {
  path: `${COMPLEMENTOS}/facadeServiceBoletasDiarias`,
  namespace: "cl.sii.sdi.lob.diii.dcv.data.impl.boletasdiarias.FacadeSettingApplicationService",
};

/** Calls a complementoscvui method: its JSON answer, or SessionExpired for the login page. */
export async function complementoCall(
  ctx: SiiContext,
  jar: CookieJar,
  service: { path: string; namespace: string },
  method: string,
  data: Record<string, unknown>,
  read: boolean,
): Promise<FacadeAnswer> {
  const url = `${service.path}/${method}`;
  const request = new Request(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/plain, */*",
      origin: "https://www4.sii.cl",
      referer: "https://www4.sii.cl/complementoscvui/",
      cookie: jar.header(url),
    },
    body: JSON.stringify({
      metaData: {
        namespace: `${service.namespace}/${method}`,
        conversationId: conversationId(jar),
        transactionId: crypto.randomUUID(),
        page: { pageSize: 1, pageIndex: 1 },
      },
      data,
    }),
  });
  const answer = await siiFetch(ctx, request, { service: rcvService(method), read });
  jar.store(url, answer.headers);
  let json: FacadeAnswer;
  try {
    json = JSON.parse(answer.text) as FacadeAnswer;
  } catch {
    throw new SessionExpired(pageText(answer.text) || answer.text.slice(0, 300));
  }
  if (json.respEstado?.codRespuesta === 98) throw new SessionExpired();
  return json;
}

/** The facade's verdict on a call: its answer, or the error it means. */
export function checkFacadeAnswer(json: FacadeAnswer, method: string, text: string): FacadeAnswer {
  if (typeof json.errorMsg === "string") {
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII's RCV refused the request", {
      details: { service: rcvService(method), sii_message: json.errorMsg },
    });
  }
  const code = json.respEstado?.codRespuesta;
  const message = json.respEstado?.msgeRespuesta ?? null;
  if (code === 0 || code === 1 || code === 3) return json;
  if (code === 98) throw new SessionExpired();
  if (/no autorizado/i.test(message ?? "")) {
    throw new ApiError(403, "AUTH_ERROR", "The credentials have no access to this taxpayer's register", {
      details: { service: rcvService(method), sii_code: code, sii_message: message },
    });
  }
  throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII's RCV answered with an error", {
    details: { service: rcvService(method), sii_code: code ?? null, sii_message: message ?? pageText(text) },
  });
}

/** A row of a facade answer larger than this is not one (a row is a few hundred bytes). */
export const MAX_FACADE_ROW_BYTES = 1024 * 1024;
/** How much of an answer's beginning is kept to quote the SII when it turns out not to be JSON. */
const HEAD_BYTES = 64 * 1024;

/**
 * `rcvCall` for answers of any size: yields each row of `data` as it arrives, so a period's rows
 * are never held at once. The same rules decide the outcome, but the facade sends `respEstado`
 * after `data`, so the verdict comes once the rows have passed (the SII sends its error codes with
 * `data: null`, so no row precedes an error). An answer that is not JSON, or not whole, is the
 * session wall as in `rcvCall` (SessionExpired, after the SII page checks).
 */
export async function* rcvRows(
  ctx: SiiContext,
  jar: CookieJar,
  method: string,
  data: Record<string, unknown>,
): AsyncGenerator<Record<string, unknown>, void, undefined> {
  const service = rcvService(method);
  const request = facadeRequest(jar, method, data);
  const answer = await siiOpen(ctx, request, { service, read: true });
  jar.store(request.url, answer.headers);
  const type = answer.headers.get("content-type") ?? "";
  const json = new JsonObjectReader("data", (bytes) => decodeAs(bytes, type), MAX_FACADE_ROW_BYTES);
  const reader = answer.body.getReader();
  const members: FacadeAnswer = {};
  let head = "";
  let done = false;
  const keepHead = (bytes: Uint8Array) => {
    if (head.length < HEAD_BYTES) head += decodeAs(bytes.subarray(0, HEAD_BYTES - head.length), type);
  };
  try {
    try {
      for (;;) {
        const next = await readWithin(ctx, service, reader);
        if (next.done) {
          done = true;
          json.end();
          break;
        }
        keepHead(next.value);
        for (const part of json.push(next.value)) {
          if (part.item) yield part.value as Record<string, unknown>;
          else members[part.key] = part.value;
        }
      }
    } catch (err) {
      if (!(err instanceof JsonStreamError)) throw err;
      // Not the facade's JSON: read the rest of a (small) page to tell which SII page it is.
      while (!done && head.length < HEAD_BYTES) {
        const next = await readWithin(ctx, service, reader);
        if (next.done) done = true;
        else keepHead(next.value);
      }
      checkSiiPage(service, { status: answer.status, headers: answer.headers, text: head });
      throw new SessionExpired(pageText(head) || head.slice(0, 300));
    }
    done = true;
    checkFacadeAnswer(members, method, head);
  } finally {
    // The consumer stopped early, or the answer was refused: let the SII's connection go.
    if (!done) reader.cancel().catch(() => undefined);
  }
}
