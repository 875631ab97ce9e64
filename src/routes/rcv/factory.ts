// What the RCV operations share: the period rule, the session they run in (the clave's own or a
// certificate's), and the handlers each operation's file calls with its validated parameters.
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { neutralizeCsvLine } from "../../lib/csv.ts";
import { santiagoDate } from "../../lib/dates.ts";
import { encodeLatin1 } from "../../lib/latin1.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError, type FieldError } from "../../platform/errors.ts";
import { type Access, isDryRun, registerOperation, responseFormat, valid } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { fieldPath } from "../../platform/validation.ts";
import { siiServices } from "../../services/sii-context.ts";
import type { CookieJar } from "../../sii/cookies.ts";
import { formatChanged } from "../../sii/format-changed.ts";
import type { SiiContext } from "../../sii/http.ts";
import {
  type AsyncJob,
  type AsyncQuery,
  asyncFileLines,
  asyncJob,
  CsvDocuments,
  checkFileCount,
  type DetalleRow,
  detalleRow,
  type RcvQuery,
  type ResumenRow,
  rcvDetail,
  rcvExport,
  rcvService,
  rcvSummary,
  requestAsync,
  resumenRows,
} from "../../sii/rcv.ts";
import { DocumentKeys } from "../../sii/rcv-rows.ts";
import type { SiiSessions } from "../../sii/session-service.ts";
import { parseCertificate } from "../credentials.ts";
import { DetailQuery, type Job, type RcvAuth, RcvAuthBody, WriteQuery, Written } from "./schema.ts";
import { COMMIT_CHARS, heldAnswer, JSON_FORMAT, type StreamFormat, streamJson } from "./stream.ts";

/** The SII's first RCV period. */
export const FIRST_PERIOD = "201705";

/** `periodo` must be a month the RCV has: from 201705 up to the current month (in Chile). */
export function checkPeriodo(c: Context<AppEnv>, periodo: string): void {
  const current = santiagoDate(c.var.deps.clock.now()).slice(0, 7).replace("-", "");
  if (periodo < FIRST_PERIOD || periodo > current) {
    throw new ApiError(400, "VALIDATION_ERROR", `periodo must be between ${FIRST_PERIOD} and ${current}`, {
      errors: [{ path: "periodo", location: "path", message: `must be a month from ${FIRST_PERIOD} to ${current}` }],
    });
  }
}

/** Runs `use` in a session as `rut`: the clave's own, or a certificate's (holder or representative). */
export async function withRcvSession<T>(
  c: Context<AppEnv>,
  sessions: SiiSessions,
  rut: string,
  auth: RcvAuth,
  use: (jar: CookieJar) => Promise<T>,
): Promise<T> {
  if (auth.pass) {
    if (auth.pass.rut !== rut) {
      throw new ApiError(403, "AUTH_ERROR", `The clave is ${auth.pass.rut}'s; it cannot open ${rut}'s register`, {
        errors: [{ path: "auth.pass.rut", location: "body", message: `must be ${rut} to read its register with a clave` }],
      });
    }
    return sessions.withClave(auth.pass, use, "https://www4.sii.cl/consdcvinternetui/");
  }
  if (!auth.cert) throw new Error("RcvAuthBody guarantees one credential");
  const credential = await parseCertificate(c, auth.cert);
  return sessions.withCertificate(credential, "0", use, rut);
}

/**
 * Answers with the text `pieces(jar)` writes (JSON unless `format` says otherwise), made in the
 * taxpayer's SII session and held as `heldAnswer` does (a session wall before the first byte logs
 * in again and starts over). A larger answer streams, and the session stays held until its body
 * is finished: the SII calls it still makes (more document types, a second read) stay serialized
 * with this taxpayer's other calls.
 */
export function answerInSession(
  c: Context<AppEnv>,
  sessions: SiiSessions,
  rut: string,
  auth: RcvAuth,
  pieces: (jar: CookieJar) => AsyncGenerator<string>,
  format: StreamFormat = JSON_FORMAT,
): Promise<Response> {
  return new Promise<Response>((answer, fail) => {
    withRcvSession(c, sessions, rut, auth, async (jar) => {
      let ended = () => {};
      const finished = new Promise<void>((resolve) => {
        ended = resolve;
      });
      answer(await heldAnswer(c, pieces(jar), format, ended));
      await finished;
    }).catch(fail);
  });
}

/** The period's summary; the SII's answer is kept whole under `sii`, `resumen` is the same rows with plain names. */
export async function answerSummary(c: Context<AppEnv>, q: RcvQuery): Promise<Response> {
  checkPeriodo(c, q.periodo);
  const { auth } = valid(c, "json", RcvAuthBody);
  const { ctx, sessions } = await siiServices(c);
  const answer = await withRcvSession(c, sessions, q.rut, auth, (jar) => rcvSummary(ctx, jar, q));
  const { metaData: _meta, ...sii } = answer;
  const resumen = resumenRows(answer);
  const total = resumen.reduce((sum, r) => sum + r.documentos, 0);
  return ok(
    c,
    { rut: q.rut, periodo: q.periodo, operacion: q.operacion, estado: q.estado, total_documentos: total, resumen, sii },
    total ? "OK" : "The period has no documents",
  );
}

/**
 * The period's documents of type `dte` (0: every type with detail, read from the summary first;
 * types kept only as totals, such as boletas, are listed as such), or with `formato=csv` the SII's
 * own export as received.
 */
export async function answerDetail(c: Context<AppEnv>, q: RcvQuery, dte: number): Promise<Response> {
  checkPeriodo(c, q.periodo);
  const { auth } = valid(c, "json", RcvAuthBody);
  const { ctx, sessions } = await siiServices(c);
  const formato = responseFormat(c, valid(c, "query", DetailQuery).formato, { json: "application/json", csv: "text/csv" });
  if (formato === "csv") {
    // The SII's own file name (it sends it after the rows, too late for the header of a streamed answer).
    const name = `RCV_${q.operacion}_${q.estado}_${q.rut}_${q.periodo}.csv`;
    return answerInSession(
      c,
      sessions,
      q.rut,
      auth,
      async function* (jar) {
        // The SII's cells as received, each guarded against formula injection (names are the counterparts' own).
        for await (const line of rcvExport(ctx, jar, q, dte)) yield `${neutralizeCsvLine(line, ";")}\n`;
      },
      {
        headers: { "content-type": "text/csv; charset=ISO-8859-1", "content-disposition": `attachment; filename="${name}"` },
        encode: (text) => encodeLatin1(text),
      },
    );
  }
  return answerInSession(c, sessions, q.rut, auth, (jar) => detailJson(ctx, jar, q, dte));
}

export interface DetailTypes {
  types: number[];
  withoutDetail: number[];
  /** Documents per type as the summary counts them, when the summary was read. */
  counted: Map<number, number> | null;
  /** The summary's row of each type, when it was read: the detail must add up to it. */
  summary?: Map<number, ResumenRow>;
}

/** The summary's rows of this side and state. */
async function summaryRows(ctx: SiiContext, jar: CookieJar, q: RcvQuery): Promise<Record<string, unknown>[]> {
  const summary = await rcvSummary(ctx, jar, q);
  return Array.isArray(summary.data) ? (summary.data as Record<string, unknown>[]) : [];
}

const countsOf = (rows: Record<string, unknown>[]) => new Map(rows.map((r) => [Number(r.rsmnTipoDocInteger), Number(r.rsmnTotDoc) || 0]));

/** The types to read (with `dte` 0: every type the summary lists with detail), and those kept only as totals. */
async function detailTypes(ctx: SiiContext, jar: CookieJar, q: RcvQuery, dte: number): Promise<DetailTypes> {
  if (dte !== 0) return { types: [dte], withoutDetail: [], counted: null };
  const answer = await rcvSummary(ctx, jar, q);
  const summary = new Map(resumenRows(answer).map((r) => [r.tipo_documento, r]));
  const rows = Array.isArray(answer.data) ? (answer.data as Record<string, unknown>[]) : [];
  return {
    types: rows.filter((r) => r.rsmnLink !== false).map((r) => Number(r.rsmnTipoDocInteger)),
    withoutDetail: rows.filter((r) => r.rsmnLink === false).map((r) => Number(r.rsmnTipoDocInteger)),
    counted: countsOf(rows),
    summary,
  };
}

/**
 * Past a ceiling the synchronous detail answers no rows instead of an error (public clients: about
 * 393 documents, the transport cut at 4 MiB; crilam/mcp-sii `src/scrapers/rcvAsync.ts` header). A
 * type that came back empty is checked against the summary: if the summary counts documents, the
 * answer is a 502 that points to the asynchronous download, never an empty period.
 */
export async function checkEmptyType(ctx: SiiContext, jar: CookieJar, q: RcvQuery, tipo: number, known: DetailTypes): Promise<void> {
  const counted = (known.counted ?? countsOf(await summaryRows(ctx, jar, q))).get(tipo) ?? 0;
  if (counted === 0) return;
  const compras = q.operacion === "COMPRA";
  const asyncPath = `/api/v1/sii/rcv/${compras ? "compras" : "ventas"}/async/solicitar/${q.rut}/${q.periodo}/${tipo}${compras ? `/${q.estado}` : ""}`;
  throw new ApiError(
    502,
    "SII_GATEWAY_ERROR",
    `The SII's synchronous detail answered no documents of type ${tipo}, but its summary counts ${counted}: the period is past what the synchronous detail serves. Use the asynchronous download (POST ${asyncPath})`,
    {
      details: {
        service: rcvService(compras ? "getDetalleCompra" : "getDetalleVenta"),
        tipo_documento: tipo,
        documentos_resumen: counted,
        async: asyncPath,
      },
    },
  );
}

/**
 * A type's detail must add up to its summary row when both were read: as many documents (crilam/mcp-sii
 * `src/scrapers/rcv.ts`: the detail of 393 documents "matches the summary exactly", checked against
 * the portal) and the same exempt, net, VAT and total amounts (the summary's rsmn* are the per-type
 * sums of the detail's det* in every public sample; inferred for the amounts). Otherwise the answer
 * is SII_FORMAT_CHANGED (aborted once streaming), never documents that contradict the summary.
 */
function checkAgainstSummary(
  tipo: number,
  sums: Record<"documentos" | "monto_exento" | "monto_neto" | "monto_iva" | "monto_total", number>,
  row?: ResumenRow,
): void {
  if (!row) return;
  for (const key of ["documentos", "monto_exento", "monto_neto", "monto_iva", "monto_total"] as const) {
    if (sums[key] !== row[key]) {
      throw formatChanged(
        rcvService("getDetalleCompra"),
        `type ${tipo}: the detail's ${key} is ${sums[key]} but the summary's ${row[key]}`,
      );
    }
  }
}

/** The SII's rows kept to answer `sii.data` from the same read; past this a second read streams them. */
export const KEEP_RAW_CHARS = COMMIT_CHARS / 4;

/** What identifies a document: the second read must bring the same documents in the same order. */
const documentKey = (d: DetalleRow) => `${d.tipo_documento}|${d.folio}|${d.rut}|${d.monto_total}`;

/** FNV-1a over the documents' keys, in order. */
function fingerprint(hash: number, text: string): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * The detail's envelope, written as the SII's rows arrive: the normalized `documentos`, then the
 * SII's own rows in `sii.data` (documented as kept so nothing is lost). JSON cannot interleave two
 * arrays, so a period too large to hold is read from the SII twice: once for `documentos`, once for
 * `sii.data`. The second read must bring the same documents (count and fingerprint); if the
 * register changed in between, the answer is aborted rather than contradict itself.
 * `registros` follows `documentos`: it is known only at the end.
 */
async function* detailJson(ctx: SiiContext, jar: CookieJar, q: RcvQuery, dte: number): AsyncGenerator<string> {
  const known = await detailTypes(ctx, jar, q, dte);
  const head = { rut: q.rut, periodo: q.periodo, operacion: q.operacion, estado: q.estado, sin_detalle: known.withoutDetail };
  yield `{"success":true,"message":"OK","data":${JSON.stringify(head).slice(0, -1)},"documentos":[`;
  let count = 0;
  let print = 2166136261;
  let kept: string[] | null = [];
  let keptChars = 0;
  const keys = new DocumentKeys(rcvService("getDetalleCompra"));
  for (const tipo of known.types) {
    const before = count;
    const sums = { documentos: 0, monto_exento: 0, monto_neto: 0, monto_iva: 0, monto_total: 0 };
    for await (const raw of rcvDetail(ctx, jar, q, tipo)) {
      const doc = keys.check(detalleRow(raw, q.estado));
      sums.documentos++;
      for (const key of ["monto_exento", "monto_neto", "monto_iva", "monto_total"] as const) sums[key] += doc[key];
      print = fingerprint(print, documentKey(doc));
      yield `${count++ ? "," : ""}${JSON.stringify(doc)}`;
      if (kept) {
        const text = JSON.stringify(raw);
        keptChars += text.length;
        if (keptChars > KEEP_RAW_CHARS) kept = null;
        else kept.push(text);
      }
    }
    if (count === before) await checkEmptyType(ctx, jar, q, tipo, known);
    else checkAgainstSummary(tipo, sums, known.summary?.get(tipo));
  }
  yield `],"registros":${count},"sii":{"data":[`;
  if (kept) yield kept.join(",");
  else {
    let again = 0;
    let reprint = 2166136261;
    for (const tipo of known.types) {
      for await (const raw of rcvDetail(ctx, jar, q, tipo)) {
        reprint = fingerprint(reprint, documentKey(detalleRow(raw, q.estado)));
        yield `${again++ ? "," : ""}${JSON.stringify(raw)}`;
      }
    }
    if (again !== count || reprint !== print) {
      throw new Error(`the SII's register changed while it was read twice (${count} documents, then ${again})`);
    }
  }
  yield `]}},"timestamp":${JSON.stringify(new Date().toISOString())}}`;
}

/**
 * The success envelope written as the file arrives, a document at a time, so a period of any size
 * passes through in flat memory. `registros` comes after `documentos`: it is known only at the end,
 * and must be what the request declared (caNumLineas), else the answer is an error (or, once
 * streaming, aborted) rather than a short list that looks whole.
 */
async function* documentsJson(job: AsyncJob, lines: ReadableStream<string>, q: AsyncQuery): AsyncGenerator<string> {
  const reader = lines.getReader();
  let finished = false;
  try {
    yield `{"success":true,"message":"OK","data":{"solicitud_id":${job.solicitud_id},"documentos":[`;
    let documents: CsvDocuments | undefined;
    let count = 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      if (!documents) documents = new CsvDocuments(next.value, q.estado, undefined, q.operacion);
      else {
        const done = documents.push(next.value);
        if (done) yield `${count++ ? "," : ""}${JSON.stringify(done)}`;
      }
    }
    finished = true;
    const last = documents?.end();
    if (last) yield `${count++ ? "," : ""}${JSON.stringify(last)}`;
    checkFileCount(job, count);
    yield `],"registros":${count}},"timestamp":${JSON.stringify(new Date().toISOString())}}`;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}

/**
 * One step of the asynchronous download: `solicitar` asks the SII to prepare the period's file,
 * `estado` reads the request's state, `detalle` answers the finished file's documents.
 */
export async function answerAsync(
  c: Context<AppEnv>,
  step: "solicitar" | "estado" | "detalle",
  q: AsyncQuery,
  solicitudId = 0,
): Promise<Response> {
  checkPeriodo(c, q.periodo);
  const { auth } = valid(c, "json", RcvAuthBody);
  const { ctx, sessions } = await siiServices(c);
  const plain = ({ blob: _blob, ...job }: { blob: string } & z.output<typeof Job>) => job;
  return withRcvSession(c, sessions, q.rut, auth, async (jar) => {
    if (step === "solicitar") return ok(c, plain(await requestAsync(ctx, jar, q)), "Download requested; poll its state");
    const job = await asyncJob(ctx, jar, q, solicitudId);
    if (step === "estado") return ok(c, plain(job));
    if (job.estado !== "TERMINADO") {
      throw new ApiError(400, "VALIDATION_ERROR", `Download ${job.solicitud_id} is ${job.estado}, not TERMINADO yet; poll its state`, {
        details: { estado: job.estado },
      });
    }
    const lines = await asyncFileLines(ctx, jar, q, job);
    return streamJson(c, documentsJson(job, lines, q));
  });
}

/** monto_total must be what its parts add up to. */
export function checkTotals(
  rows: { monto_exento: number; monto_neto: number; monto_iva: number; monto_total: number }[],
  path: string,
): FieldError[] {
  return rows.flatMap((r, i) =>
    r.monto_exento + r.monto_neto + r.monto_iva === r.monto_total
      ? []
      : [
          {
            path: fieldPath(path, i, "monto_total"),
            location: "body" as const,
            message: `must be monto_exento + monto_neto + monto_iva (${r.monto_exento + r.monto_neto + r.monto_iva})`,
          },
        ],
  );
}

function refuse(errors: FieldError[]): void {
  if (errors.length) throw new ApiError(400, "VALIDATION_ERROR", `Invalid ${errors.map((e) => e.path).join(", ")}`, { errors });
}

/** A write: its payload is validated strictly (`check`) before anything is sent; `dry_run` stops there. */
export interface WriteSpec<P extends z.ZodObject & z.ZodType<{ periodo: string }>, B extends z.ZodType<{ auth: RcvAuth }>> {
  path: string;
  access: Access;
  summary: string;
  /** How the SII-side call is known (the operation's description). */
  description?: string;
  params: P;
  /** The taxpayer whose register is written. */
  rut: (params: z.output<P>) => string;
  body: B;
  check?: (body: z.output<B>, params: z.output<P>) => FieldError[];
  send: (ctx: SiiContext, jar: CookieJar, rut: string, body: z.output<B>, params: z.output<P>) => Promise<Record<string, unknown>>;
}

export function registerRcvWrite<P extends z.ZodObject & z.ZodType<{ periodo: string }>, B extends z.ZodType<{ auth: RcvAuth }>>(
  app: OpenAPIHono<AppEnv>,
  spec: WriteSpec<P, B>,
): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: spec.path,
      tags: ["RCV"],
      summary: spec.summary,
      description:
        spec.description ??
        "The SII-side call of this operation is inferred (not public); `dry_run` validates everything without contacting the SII.",
      request: { params: spec.params, query: WriteQuery, body: jsonBody(spec.body) },
      responses: { 200: jsonContent(Written, "The SII's confirmation"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    spec.access,
    async (c) => {
      const params = valid(c, "param", spec.params);
      const rut = spec.rut(params);
      checkPeriodo(c, params.periodo);
      const body = valid(c, "json", spec.body);
      refuse(spec.check?.(body, params) ?? []);
      if (isDryRun(c))
        return ok(
          c,
          { rut, periodo: params.periodo, sii: {} },
          "Preview only (dry_run): the request is valid; nothing was sent to the SII",
        );
      const { ctx, sessions } = await siiServices(c);
      const answer = await withRcvSession(c, sessions, rut, body.auth, (jar) => spec.send(ctx, jar, rut, body, params));
      const { metaData: _meta, ...sii } = answer;
      return ok(
        c,
        { rut, periodo: params.periodo, sii },
        String((sii.respEstado as { msgeRespuesta?: string } | undefined)?.msgeRespuesta ?? "OK"),
      );
    },
  );
}
