// The RCV's JSON facade at www4.sii.cl (docs/sii-services.md §7): an envelope whose conversationId is the
// session TOKEN, answers whose respEstado says how it went, HTML when the session is gone.

import { ApiError } from "../lib/api-error.ts";
import { JsonObjectReader, JsonStreamError } from "../lib/json-object-reader.ts";
import { decodeAs, decodeLatin1 } from "../lib/latin1.ts";
import { throughOnDemand } from "../lib/streams.ts";
import type { CookieJar } from "./cookies.ts";
import { checkSiiPage, pageText, readWithin, type SiiContext, siiFetch, siiOpen } from "./http.ts";
import { SessionExpired } from "./sessions.ts";

const FACADE = "https://www4.sii.cl/consdcvinternetui/services/data/facadeService";
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
const BLOB_SERVICE = rcvService("obtenerArchivoBLOB");

/** The facade's envelope around `data`: the session TOKEN as conversationId. */
function facadeRequest(jar: CookieJar, method: string, data: Record<string, unknown>): Request {
  const url = `${FACADE}/${method}`;
  const body = JSON.stringify({
    metaData: {
      namespace: `${NAMESPACE}/${method}`,
      conversationId: jar.get("TOKEN") ?? "",
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
        conversationId: jar.get("TOKEN") ?? "",
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

export interface CambioTipoCompra {
  tipo_documento: number;
  /** The supplier, `XXXXXXXX-K`. */
  rut_emisor: string;
  folio: number;
  tipo_transaccion: number;
}

/**
 * Changes a purchase's transaction type ("Cambiar tipo de compra" in the portal): one document per
 * call, with the fields devlas-cl/dte-sii `SiiPortalAuth.js` `cambiarTipoCompra` sends, accepted
 * only when the SII answers `data: "OK"` (anything else is its refusal, quoted).
 */
export async function cambiaTipoCompra(
  ctx: SiiContext,
  jar: CookieJar,
  rut: string,
  periodo: string,
  doc: CambioTipoCompra,
): Promise<string> {
  const [body, dv] = rut.split("-");
  const [rutContraparte, dvContraparte] = doc.rut_emisor.split("-");
  const json = await complementoCall(
    ctx,
    jar,
    COMPRAS_SERVICE,
    "cambiaTipoCompra",
    {
      rut: body,
      dv,
      operacion: "COMPRA",
      tipoDocumento: String(doc.tipo_documento),
      numeroDocumento: String(doc.folio),
      periodoTributario: periodo,
      tipoCompra: String(doc.tipo_transaccion),
      rutContraparte,
      dvContraparte,
    },
    false,
  );
  if (json.data === "OK") return "OK";
  throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII did not confirm the change of purchase type", {
    details: {
      service: rcvService("cambiaTipoCompra"),
      sii_code: json.respEstado?.codRespuesta ?? null,
      sii_message:
        typeof json.errorMsg === "string" ? json.errorMsg : (json.respEstado?.msgeRespuesta ?? JSON.stringify(json.data ?? null)),
    },
  });
}

/** Types whose daily receipts the SII lists (the public client accepts only these). */
export const DAILY_TYPES = [39, 48] as const;

export interface BoletasMes {
  documentos: number;
  monto_exento: number;
  monto_neto: number;
  monto_iva: number;
  monto_total: number;
  /** The SII's day entries as received (only objects with `dia`). */
  dias: Record<string, unknown>[];
}

/**
 * A month's daily receipts of one type: `obtieneListaBoletasMes` with `{rut, dv, periodo,
 * tipoDocumento}`, answering `data.boletas` (entries with `dia`; the SII mixes in other values) and
 * the month's `totalDocumentos`, `montoTotal`, `montoNeto`, `montoIva`, `montoExento`
 * (tomasleblancu/fizko `backend/app/integrations/sii/extractors/dtes.py`). A respEstado other than
 * 0, 1 or 3 is an error, as in the facade (whether the read carries one is not public).
 */
export async function obtieneListaBoletasMes(
  ctx: SiiContext,
  jar: CookieJar,
  rut: string,
  periodo: string,
  tipo: number,
): Promise<BoletasMes> {
  const [body, dv] = rut.split("-");
  const json = await complementoCall(
    ctx,
    jar,
    BOLETAS_SERVICE,
    "obtieneListaBoletasMes",
    { rut: body, dv, periodo, tipoDocumento: String(tipo) },
    true,
  );
  if (json.respEstado && json.respEstado.codRespuesta !== undefined) checkFacadeAnswer(json, "obtieneListaBoletasMes", "");
  const data = (json.data && typeof json.data === "object" ? json.data : {}) as Record<string, unknown>;
  const boletas = Array.isArray(data.boletas) ? data.boletas : [];
  return {
    documentos: n(data.totalDocumentos),
    monto_exento: n(data.montoExento),
    monto_neto: n(data.montoNeto),
    monto_iva: n(data.montoIva),
    monto_total: n(data.montoTotal),
    dias: boletas.filter((d): d is Record<string, unknown> => typeof d === "object" && d !== null && "dia" in d),
  };
}

/** The facade's verdict on a call: its answer, or the error it means. */
function checkFacadeAnswer(json: FacadeAnswer, method: string, text: string): FacadeAnswer {
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

export interface ResumenRow {
  tipo_documento: number;
  nombre_documento: string;
  /** DET_ELE (electronic, with detail), DET_PAP (paper) or RESUMEN (totals only, e.g. boletas). */
  tipo_ingreso: string;
  documentos: number;
  monto_exento: number;
  monto_neto: number;
  monto_iva: number;
  monto_iva_no_recuperable: number;
  iva_uso_comun: number;
  monto_total: number;
  /** Credit notes come with positive amounts: subtract them. */
  nota_credito: boolean;
}

const CREDIT_NOTES = new Set([60, 61, 112]);
const n = (value: unknown) => (typeof value === "number" ? value : Number(value ?? 0) || 0);

export function resumenRows(answer: FacadeAnswer): ResumenRow[] {
  const rows = Array.isArray(answer.data) ? (answer.data as Record<string, unknown>[]) : [];
  return rows.map((row) => ({
    tipo_documento: n(row.rsmnTipoDocInteger),
    nombre_documento: String(row.dcvNombreTipoDoc ?? ""),
    tipo_ingreso: String(row.dcvTipoIngresoDoc ?? ""),
    documentos: n(row.rsmnTotDoc),
    monto_exento: n(row.rsmnMntExe),
    monto_neto: n(row.rsmnMntNeto),
    monto_iva: n(row.rsmnMntIVA),
    monto_iva_no_recuperable: n(row.rsmnMntIVANoRec),
    iva_uso_comun: n(row.rsmnIVAUsoComun),
    monto_total: n(row.rsmnMntTotal),
    nota_credito: CREDIT_NOTES.has(n(row.rsmnTipoDocInteger)),
  }));
}

export interface DetalleRow {
  tipo_documento: number;
  folio: number;
  /** The counterpart: the supplier in purchases, the customer in sales. */
  rut: string;
  razon_social: string;
  fecha: string;
  fecha_recepcion: string | null;
  monto_exento: number;
  monto_neto: number;
  monto_iva: number;
  monto_total: number;
  estado: string;
  nota_credito: boolean;
}

/** `DD/MM/YYYY[ HH:MM:SS]` → `YYYY-MM-DD[THH:MM:SS]`. */
export function isoDate(text: unknown): string | null {
  const match = /^(\d{2})\/(\d{2})\/(\d{4})(?: (\d{2}:\d{2}:\d{2}))?$/.exec(String(text ?? "").trim());
  if (!match) return null;
  return `${match[3]}-${match[2]}-${match[1]}${match[4] ? `T${match[4]}` : ""}`;
}

export function detalleRows(rows: Record<string, unknown>[]): DetalleRow[] {
  return rows.map(detalleRow);
}

export function detalleRow(row: Record<string, unknown>): DetalleRow {
  return {
    tipo_documento: n(row.detTipoDoc),
    folio: n(row.detNroDoc),
    rut: `${row.detRutDoc}-${String(row.detDvDoc ?? "").toUpperCase()}`,
    razon_social: String(row.detRznSoc ?? ""),
    fecha: isoDate(row.detFchDoc) ?? String(row.detFchDoc ?? ""),
    fecha_recepcion: isoDate(row.detFecRecepcion),
    monto_exento: n(row.detMntExe),
    monto_neto: n(row.detMntNeto),
    monto_iva: n(row.detMntIVA),
    monto_total: n(row.detMntTotal),
    estado: String(row.dcvEstadoContab ?? ""),
    nota_credito: CREDIT_NOTES.has(n(row.detTipoDoc)),
  };
}

// Asynchronous downloads (docs/sii-services.md §7.6): request, poll, then fetch the gzipped CSV.

export interface AsyncJob {
  solicitud_id: number;
  /** The SII's state: CREADO, EN PROCESO, TERMINADO (or an error state). */
  estado: string;
  tipo_documento: number;
  /** Documents in the file (caNumLineas: distinct `Nro`, not CSV lines). */
  registros: number;
  creado: string | null;
  terminado: string | null;
  error: string | null;
  blob: string;
}

interface Control extends AsyncJob {
  periodo: number;
  operacion: "COMPRA" | "VENTA" | null;
}

/** A getCtrlAsync row (field names: crilam/mcp-sii `src/scrapers/rcvAsync.ts`, verified live there). */
export function controlOf(row: Record<string, unknown>): Control {
  // caProceso names the side: `…_C_…` purchases, `…_V_…` sales (same source, `operacionDe`).
  const side = /_([CV])_/.exec(String(row.caProceso ?? ""))?.[1];
  return {
    solicitud_id: n(row.caId),
    estado: String(row.caEstado ?? ""),
    tipo_documento: n(row.caTipoDoc),
    registros: n(row.caNumLineas),
    creado: typeof row.caTmstCreado === "string" ? row.caTmstCreado : null,
    terminado: typeof row.caTmstTerminado === "string" ? row.caTmstTerminado : null,
    error: typeof row.caDescError === "string" ? row.caDescError : null,
    blob: String(row.caIdBLOB ?? ""),
    periodo: n(row.caPeriodo),
    operacion: side === "C" ? "COMPRA" : side === "V" ? "VENTA" : null,
  };
}

export interface AsyncQuery {
  rut: string;
  periodo: string;
  tipo: number;
  operacion: "COMPRA" | "VENTA";
  estado: string;
}

/** The fields the portal sends (crilam/mcp-sii `src/scrapers/rcvAsync.ts` `dataCtrl`: reCAPTCHA empty, `totDoc` 0). */
function ctrlData(q: AsyncQuery, generaCtrl: boolean): Record<string, unknown> {
  const [rutEmisor, dvEmisor] = q.rut.split("-");
  return {
    rutEmisor,
    dvEmisor,
    ptributario: q.periodo,
    codTipoDoc: String(q.tipo),
    generaCtrl,
    operacion: q.operacion,
    estadoContab: q.estado,
    totDoc: 0,
    accionRecaptcha: "",
    tokenRecaptcha: "",
  };
}

/**
 * The SII lists the taxpayer's download requests of every period, side and type together: only
 * those of this period, side and type are this query's, newest first (crilam/mcp-sii
 * `src/scrapers/rcvAsync.ts` `filtrar`). A row whose caProceso names no side is taken as ours.
 */
export function controlsOf(answer: FacadeAnswer, q: AsyncQuery): AsyncJob[] {
  const rows = Array.isArray(answer.data) ? (answer.data as Record<string, unknown>[]) : [];
  return rows
    .map(controlOf)
    .filter((c) => c.periodo === Number(q.periodo) && c.tipo_documento === q.tipo && (c.operacion ?? q.operacion) === q.operacion)
    .sort((a, b) => b.solicitud_id - a.solicitud_id)
    .map(({ periodo: _p, operacion: _o, ...job }) => job);
}

/** Step 1: ask the SII to prepare the period's file; the newest request of this period, side and type is ours. */
export async function requestAsync(ctx: SiiContext, jar: CookieJar, q: AsyncQuery): Promise<AsyncJob> {
  const job = controlsOf(await rcvCall(ctx, jar, "getCtrlAsync", ctrlData(q, true)), q)[0];
  if (!job)
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII did not confirm the download request", {
      details: { service: rcvService("getCtrlAsync") },
    });
  return job;
}

/** Step 2: the request's state; 404 when the SII has no such request for this period, side and type. */
export async function asyncJob(ctx: SiiContext, jar: CookieJar, q: AsyncQuery, id: number): Promise<AsyncJob> {
  const job = controlsOf(await rcvCall(ctx, jar, "getCtrlAsync", ctrlData(q, false)), q).find((j) => j.solicitud_id === id);
  if (!job) throw new ApiError(404, "HTTP_404", `The SII has no download request ${id} of type ${q.tipo} for ${q.rut} in ${q.periodo}`);
  return job;
}

/** Unpacked size past which a download is cut (a 100 000-document period is about 20 MB). */
export const MAX_ASYNC_FILE_BYTES = 512 * 1024 * 1024;
/** A CSV line of the register is a few hundred characters; past this the file is not one. */
export const MAX_CSV_LINE = 64 * 1024;

/**
 * Step 3: the finished file as a stream of CSV lines (header first), gunzipped and decoded
 * (ISO-8859-1) as it arrives: a period of any size is never held in memory whole.
 */
export async function asyncFileLines(ctx: SiiContext, jar: CookieJar, q: AsyncQuery, job: AsyncJob): Promise<ReadableStream<string>> {
  const service = BLOB_SERVICE;
  // Both RUTs without check digit, the session's user first, then the company: crilam/mcp-sii
  // `src/scrapers/rcvAsync.ts` (verified live; its test expects `/obtenerArchivoBLOB/uuid-1/11111111/22222222/700`).
  const company = q.rut.split("-")[0] ?? "";
  const user = jar.get("RUT_NS") ?? company;
  const url = `${FACADE}/obtenerArchivoBLOB/${encodeURIComponent(job.blob)}/${user}/${company}/${job.solicitud_id}`;
  // Within the SII time limit (for the headers and for each piece), a dropped connection a 502.
  const res = await siiOpen(ctx, new Request(url, { headers: { cookie: jar.header(url), accept: "*/*" } }), { service, read: true });
  const reader = res.body.getReader();
  const first = await readWithin(ctx, service, reader);
  const head = first.value ?? new Uint8Array(0);
  // Anything but gzip (1f 8b) is the SII's error or login page.
  if (head[0] !== 0x1f || head[1] !== 0x8b) {
    let text = decodeLatin1(head);
    for (let next = first; !next.done && text.length < 64 * 1024; ) {
      next = await readWithin(ctx, service, reader);
      if (next.value) text += decodeLatin1(next.value);
    }
    reader.cancel().catch(() => undefined);
    checkSiiPage(service, { status: res.status, headers: res.headers, text });
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII did not hand over the file", {
      details: { service, sii_status: res.status, sii_message: pageText(text) },
    });
  }
  let pending: Uint8Array | null = head;
  const compressed = {
    next: async (): ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]> => {
      if (!pending) return readWithin(ctx, service, reader);
      const value = pending;
      pending = null;
      return { done: false, value };
    },
    return: () => reader.cancel(),
  };
  const unpacked = throughOnDemand(compressed, new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>);
  let rest = "";
  let total = 0;
  const lines = new TransformStream<Uint8Array, string>({
    transform(chunk, controller) {
      // A gzip bomb (or a broken file) is cut: no period's export is near these sizes.
      total += chunk.length;
      if (total > MAX_ASYNC_FILE_BYTES) throw new Error(`the SII's file unpacks to more than ${MAX_ASYNC_FILE_BYTES} bytes`);
      // latin1 is one byte per character, so chunks split anywhere decode correctly.
      const parts = (rest + decodeLatin1(chunk)).split(/\r?\n/);
      rest = parts.pop() ?? "";
      if (rest.length > MAX_CSV_LINE) throw new Error(`the SII's file has a line longer than ${MAX_CSV_LINE} characters`);
      for (const line of parts) if (line.trim() !== "") controller.enqueue(line);
    },
    flush(controller) {
      if (rest.trim() !== "") controller.enqueue(rest);
    },
  });
  // A file that is not gzip after all, is cut short, or passes a limit is the SII's failure (502).
  const piped = unpacked.pipeThrough(lines).getReader();
  return new ReadableStream<string>({
    async pull(controller) {
      try {
        const next = await piped.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (err) {
        if (err instanceof ApiError) return controller.error(err);
        // The inflater's errors say little (often nothing): name what went wrong.
        const reason = err instanceof Error && err.message ? err.message : "not a whole gzip file (broken or cut short)";
        controller.error(
          new ApiError(502, "SII_GATEWAY_ERROR", `The SII's file could not be read: ${reason}`, { details: { service, reason } }),
        );
      }
    },
    cancel: (reason) => piped.cancel(reason),
  });
}

export interface OtroImpuesto {
  codigo: number;
  valor: number;
  tasa: number | null;
}

export type CsvDocument = DetalleRow & { otros_impuestos: OtroImpuesto[] };

/** A CSV cell as a value: trimmed, unquoted; `null` and `-` are empty (cordada/lib-cl-sii-python `src/tests/test_data/sii-rcv`). */
function cell(text: string | undefined): string {
  const value = (text ?? "")
    .trim()
    .replace(/^"(.*)"$/, "$1")
    .trim();
  return value === "null" || value === "-" ? "" : value;
}

/**
 * Reads the register's CSV (header first) as documents. A document with several "other taxes"
 * spans several lines: the extra ones have an empty `Nro` and belong to the document before them
 * (cordada/lib-cl-sii-python `src/tests/test_data/sii-rcv/RCV-venta-extra-empty-impuestos-rows.csv`;
 * crilam/mcp-sii `src/scrapers/rcvAsync.ts` counts documents by distinct `Nro`). `push` answers the
 * document the line completes, if any; `end` the last one. A document is held only until the next
 * one starts, so a file of any size passes through in flat memory.
 */
export class CsvDocuments {
  private readonly columns: string[];
  private pending: CsvDocument | null = null;
  /** Documents completed so far (continuation lines not counted). */
  count = 0;

  private readonly estado: string;

  constructor(header: string, estado: string) {
    this.columns = header.split(";").map((c) => c.trim().toLowerCase());
    this.estado = estado;
  }

  private at(row: string[], ...names: string[]): string {
    for (const name of names) {
      const i = this.columns.indexOf(name.toLowerCase());
      if (i >= 0) return cell(row[i]);
    }
    return "";
  }

  /** The line's "other tax" (purchases: `Codigo Otro Impuesto`, sales: `Codigo Otro Imp.`), if it has one. */
  private tax(row: string[]): OtroImpuesto | null {
    const codigo = this.at(row, "Codigo Otro Impuesto", "Codigo Otro Imp.");
    if (!codigo) return null;
    const tasa = this.at(row, "Tasa Otro Impuesto", "Tasa Otro Imp.");
    return { codigo: n(codigo), valor: n(this.at(row, "Valor Otro Impuesto", "Valor Otro Imp.")), tasa: tasa === "" ? null : n(tasa) };
  }

  push(line: string): CsvDocument | null {
    const row = line.split(";");
    const tax = this.tax(row);
    if (this.at(row, "Nro") === "") {
      if (!this.pending) {
        throw new ApiError(
          502,
          "SII_GATEWAY_ERROR",
          "The SII's file starts with a continuation line (empty Nro) that belongs to no document",
          {
            details: { service: BLOB_SERVICE, reason: "continuation line without a document" },
          },
        );
      }
      if (tax) this.pending.otros_impuestos.push(tax);
      return null;
    }
    const done = this.take();
    const tipo = n(this.at(row, "Tipo Doc"));
    this.pending = {
      tipo_documento: tipo,
      folio: n(this.at(row, "Folio")),
      rut: this.at(row, "RUT Proveedor", "Rut cliente").toUpperCase(),
      razon_social: this.at(row, "Razon Social"),
      fecha: isoDate(this.at(row, "Fecha Docto")) ?? this.at(row, "Fecha Docto"),
      fecha_recepcion: isoDate(this.at(row, "Fecha Recepcion")),
      monto_exento: n(this.at(row, "Monto Exento")),
      monto_neto: n(this.at(row, "Monto Neto")),
      monto_iva: n(this.at(row, "Monto IVA Recuperable", "Monto IVA")),
      monto_total: n(this.at(row, "Monto Total")),
      estado: this.estado,
      nota_credito: CREDIT_NOTES.has(tipo),
      otros_impuestos: tax ? [tax] : [],
    };
    return done;
  }

  end(): CsvDocument | null {
    return this.take();
  }

  private take(): CsvDocument | null {
    const done = this.pending;
    this.pending = null;
    if (done) this.count++;
    return done;
  }
}

/** The documents of a CSV (header first, as `asyncFileLines` yields it), one by one. */
export async function* csvDocuments(lines: Iterable<string> | AsyncIterable<string>, estado: string): AsyncGenerator<CsvDocument> {
  let reader: CsvDocuments | undefined;
  for await (const line of lines) {
    if (!reader) reader = new CsvDocuments(line, estado);
    else {
      const done = reader.push(line);
      if (done) yield done;
    }
  }
  const last = reader?.end();
  if (last) yield last;
}

/**
 * The file must hold as many documents as its request declared (caNumLineas): a file cut short or
 * read wrong is an error, never a smaller answer (crilam/mcp-sii `src/scrapers/rcvAsync.ts`).
 */
export function checkFileCount(job: AsyncJob, documents: number): void {
  if (documents === job.registros) return;
  throw new ApiError(
    502,
    "SII_GATEWAY_ERROR",
    `The SII's file holds ${documents} documents but its download request ${job.solicitud_id} declared ${job.registros}`,
    { details: { service: BLOB_SERVICE, documentos: documents, declarados: job.registros } },
  );
}

// One function per SII call of the RCV operations: the request's fields are built here, so a
// route only validates, calls one of these, and answers. The facade's field sets follow
// sergiokml/PortalFacturas `Models/DetalleReq.cs` (getResumen, getDetalle*) and the portal's own
// calls; the reCAPTCHA action names (RCV_DETC, RCV_DDETC, …) and the fixed `t-o-k-e-n-web` token
// are what public clients replay from captures of the portal (getResumen's fields also in
// crilam/mcp-sii `src/scrapers/rcv.ts`).

/** The register's accounting states of purchases (sales have only REGISTRO). */
export const RCV_ESTADOS = ["REGISTRO", "PENDIENTE", "NO_INCLUIR", "RECLAMADO"] as const;

/** What an RCV read is about: the taxpayer (`XXXXXXXX-K`), the month, the side and (purchases) the state. */
export interface RcvQuery {
  rut: string;
  periodo: string;
  operacion: "COMPRA" | "VENTA";
  estado: string;
}

/** The taxpayer and month, as every facade call names them. */
function periodFields(q: Pick<RcvQuery, "rut" | "periodo">) {
  const [rutEmisor, dvEmisor] = q.rut.split("-");
  return { rutEmisor, dvEmisor, ptributario: q.periodo };
}

/** The period's summary (`getResumen`): one row per document type. */
export function rcvSummary(ctx: SiiContext, jar: CookieJar, q: RcvQuery): Promise<FacadeAnswer> {
  return rcvCall(ctx, jar, "getResumen", { ...periodFields(q), estadoContab: q.estado, operacion: q.operacion, busquedaInicial: true });
}

/** The detail's fields for one type: sales name neither operation nor state. */
function detailFields(q: RcvQuery, tipo: number, purchases: string, sales: string) {
  const compras = q.operacion === "COMPRA";
  return {
    ...periodFields(q),
    codTipoDoc: String(tipo),
    operacion: compras ? "COMPRA" : "",
    estadoContab: compras ? q.estado : "",
    accionRecaptcha: compras ? purchases : sales,
    tokenRecaptcha: "t-o-k-e-n-web",
  };
}

/** The period's documents of one type (`getDetalleCompra` / `getDetalleVenta`), row by row as they arrive. */
export function rcvDetail(ctx: SiiContext, jar: CookieJar, q: RcvQuery, tipo: number): AsyncGenerator<Record<string, unknown>> {
  const method = q.operacion === "COMPRA" ? "getDetalleCompra" : "getDetalleVenta";
  return rcvRows(ctx, jar, method, detailFields(q, tipo, "RCV_DETC", "RCV_DETV"));
}

/** The SII's CSV export of one type (`getDetalle*Export`): its lines as received, ISO-8859-1 text. */
export async function* rcvExport(ctx: SiiContext, jar: CookieJar, q: RcvQuery, tipo: number): AsyncGenerator<string> {
  const method = q.operacion === "COMPRA" ? "getDetalleCompraExport" : "getDetalleVentaExport";
  for await (const line of rcvRows(ctx, jar, method, detailFields(q, tipo, "RCV_DDETC", "RCV_DDETV"))) yield String(line);
}

/**
 * A purchase document by type and folio, in every state (suppliers may share folio numbers): the
 * SII's rows that match, and the states whose detail came back empty (it answers no rows past its
 * ceiling, so an empty state does not prove the document absent).
 */
export async function rcvPurchaseByFolio(
  ctx: SiiContext,
  jar: CookieJar,
  q: Pick<RcvQuery, "rut" | "periodo">,
  tipo: number,
  folio: number,
): Promise<{ rows: Record<string, unknown>[]; emptyStates: string[] }> {
  const rows: Record<string, unknown>[] = [];
  const emptyStates: string[] = [];
  for (const estado of RCV_ESTADOS) {
    const fields = detailFields({ ...q, operacion: "COMPRA", estado }, tipo, "RCV_DETC", "RCV_DETV");
    const answer = await rcvCall(ctx, jar, "getDetalleCompra", fields);
    const data = Array.isArray(answer.data) ? (answer.data as Record<string, unknown>[]) : [];
    if (!data.length) emptyStates.push(estado);
    rows.push(...data.filter((r) => Number(r.detNroDoc) === folio));
  }
  return { rows, emptyStates };
}

/**
 * Sets the transaction type of purchase documents, one `cambiaTipoCompra` call each in the order
 * given. A refusal stops there and names the documents already changed, so a retry starts where
 * this one stopped.
 */
export async function rcvSetTransactionTypes(
  ctx: SiiContext,
  jar: CookieJar,
  rut: string,
  periodo: string,
  documents: CambioTipoCompra[],
): Promise<FacadeAnswer> {
  const cambios: Record<string, unknown>[] = [];
  for (const [i, d] of documents.entries()) {
    const doc = { tipo_documento: d.tipo_documento, rut_emisor: d.rut_emisor, folio: d.folio, tipo_transaccion: d.tipo_transaccion };
    try {
      cambios.push({ ...doc, data: await cambiaTipoCompra(ctx, jar, rut, periodo, doc) });
    } catch (err) {
      if (!(err instanceof ApiError) || !cambios.length) throw err;
      throw new ApiError(err.status, err.code, `${err.message} (document ${i}); the ${cambios.length} before it were changed`, {
        ...err.init,
        details: { ...err.init.details, documento: i, cambiados: cambios },
      });
    }
  }
  return { data: "OK", cambios };
}

/**
 * The sales summaries kept as totals, with the days of receipts (39) and vouchers (48): the sales
 * summary (`getResumen`) names the types, the daily receipts' read (`obtieneListaBoletasMes`) gives
 * the days. The day entries' field names other than `dia` are inferred.
 */
export async function rcvSummaryDetail(
  ctx: SiiContext,
  jar: CookieJar,
  rut: string,
  periodo: string,
): Promise<{ resumenes: Record<string, unknown>[]; sii: Record<string, unknown> }> {
  const summary = await rcvSummary(ctx, jar, { rut, periodo, operacion: "VENTA", estado: "REGISTRO" });
  const totalsOnly = resumenRows(summary).filter((r) => r.tipo_ingreso === "RESUMEN");
  const days = new Map<number, BoletasMes>();
  for (const r of totalsOnly) {
    if ((DAILY_TYPES as readonly number[]).includes(r.tipo_documento)) {
      days.set(r.tipo_documento, await obtieneListaBoletasMes(ctx, jar, rut, periodo, r.tipo_documento));
    }
  }
  const resumenes = totalsOnly.map((r) => ({
    tipo_documento: r.tipo_documento,
    documentos: r.documentos,
    monto_exento: r.monto_exento,
    monto_neto: r.monto_neto,
    monto_iva: r.monto_iva,
    monto_total: r.monto_total,
    dias: (days.get(r.tipo_documento)?.dias ?? []).map((d) => ({
      dia: n(d.dia),
      documentos: n(d.totalDocumentos),
      folio_inicial: n(d.folioInicial),
      folio_final: n(d.folioFinal),
      monto_exento: n(d.montoExento),
      monto_neto: n(d.montoNeto),
      monto_iva: n(d.montoIva),
      monto_total: n(d.montoTotal),
    })),
  }));
  const { metaData: _meta, ...resumen } = summary;
  const boletas = Object.fromEntries([...days].map(([tipo, month]) => [String(tipo), month]));
  return { resumenes, sii: { resumen, boletas } };
}
