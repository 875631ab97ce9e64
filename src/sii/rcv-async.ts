// Asynchronous downloads of the register (docs/sii-services.md §7.6): request, poll, then fetch the
// gzipped CSV (read by rcv-csv.ts). getCtrlAsync's rows are read by key: a row without the keys the
// download needs is SII_FORMAT_CHANGED, not a request with id 0.
import { ApiError } from "../lib/api-error.ts";
import { decodeLatin1 } from "../lib/latin1.ts";
import { throughOnDemand } from "../lib/streams.ts";
import type { CookieJar } from "./cookies.ts";
import { formatChanged } from "./format-changed.ts";
import { checkSiiPage, pageText, readWithin, type SiiContext, siiOpen } from "./http.ts";
import { FACADE, type FacadeAnswer, rcvCall, rcvService } from "./rcv-facade.ts";
import { dataRows, n } from "./rcv-rows.ts";

const BLOB_SERVICE = rcvService("obtenerArchivoBLOB");

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
  // A finished request must name its file and its documents; every request its id, state, period and type.
  const keys = ["caId", "caEstado", "caPeriodo", "caTipoDoc", ...(row.caEstado === "TERMINADO" ? ["caIdBLOB", "caNumLineas"] : [])];
  const missing = keys.find((key) => row[key] === undefined || row[key] === null);
  if (missing) throw formatChanged(rcvService("getCtrlAsync"), `a download request has no "${missing}"`, JSON.stringify(row).slice(0, 300));
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
  const rows = dataRows(answer, rcvService("getCtrlAsync"));
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
