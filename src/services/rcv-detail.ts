// The RCV's reads as the gateway composes them from the SII's services, with no HTTP: the session
// an RCV call runs in (the clave's own or a certificate's), the summary with plain names, and the
// detail (summary → types → detail → empty-type check → second read), written as text pieces the
// route streams; and the asynchronous download's documents. Routes parse, call these, answer.
import type { SigningCredential } from "../certificates/credentials.ts";
import { neutralizeCsvLine } from "../lib/csv.ts";
import { ApiError } from "../platform/errors.ts";
import type { CookieJar } from "../sii/cookies.ts";
import { formatChanged } from "../sii/format-changed.ts";
import type { SiiContext } from "../sii/http.ts";
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
} from "../sii/rcv.ts";
import { RCV_APP } from "../sii/rcv-facade.ts";
import { DocumentKeys } from "../sii/rcv-rows.ts";
import type { SiiSessions } from "../sii/session-service.ts";

/** An RCV call's credential as the request gives it: a clave, or a certificate still to be read (`C`). */
export interface RcvLogin<C> {
  pass?: { rut: string; clave: string };
  cert?: C;
}

/**
 * Runs `use` in a session as `rut`: the clave's own, or a certificate's (holder or representative),
 * read by `readCertificate` only when it is the one given.
 */
export async function withRcvSession<T, C>(
  sessions: SiiSessions,
  rut: string,
  auth: RcvLogin<C>,
  readCertificate: (cert: C) => Promise<SigningCredential>,
  use: (jar: CookieJar) => Promise<T>,
): Promise<T> {
  if (auth.pass) {
    if (auth.pass.rut !== rut) {
      throw new ApiError(403, "AUTH_ERROR", `The clave is ${auth.pass.rut}'s; it cannot open ${rut}'s register`, {
        errors: [{ path: "auth.pass.rut", location: "body", message: `must be ${rut} to read its register with a clave` }],
      });
    }
    return sessions.withClave(auth.pass, use, RCV_APP);
  }
  if (!auth.cert) throw new Error("RcvAuthBody guarantees one credential");
  const credential = await readCertificate(auth.cert);
  return sessions.withCertificate(credential, "0", use, rut);
}

/** The period's summary; the SII's answer is kept whole under `sii`, `resumen` is the same rows with plain names. */
export async function readSummary(ctx: SiiContext, jar: CookieJar, q: RcvQuery) {
  const answer = await rcvSummary(ctx, jar, q);
  const { metaData: _meta, ...sii } = answer;
  const resumen = resumenRows(answer);
  const total = resumen.reduce((sum, r) => sum + r.documentos, 0);
  return { rut: q.rut, periodo: q.periodo, operacion: q.operacion, estado: q.estado, total_documentos: total, resumen, sii };
}

/**
 * Takes the units for a read of `rows` documents before the first of them is read (the caller's
 * charging rule: src/routes/rcv/factory.ts), or throws 429 QUOTA_EXCEEDED.
 */
export type PayRows = (rows: number) => Promise<void>;

/**
 * The SII's own export of the period's type `dte` (0: all), a line at a time, as received. `pay`
 * takes the units for the documents the summary counts of that type (of every type with `dte` 0)
 * before the export is read; the export may not bring more.
 */
export async function* detailCsvLines(ctx: SiiContext, jar: CookieJar, q: RcvQuery, dte: number, pay: PayRows): AsyncGenerator<string> {
  const counted = resumenRows(await rcvSummary(ctx, jar, q))
    .filter((r) => dte === 0 || r.tipo_documento === dte)
    .reduce((sum, r) => sum + r.documentos, 0);
  await pay(counted);
  // The SII's cells as received, each guarded against formula injection (names are the counterparts' own).
  for await (const line of rcvExport(ctx, jar, q, dte, counted)) yield `${neutralizeCsvLine(line, ";")}\n`;
}

/** The SII's own file name of the export (it sends it after the rows, too late for the header of a streamed answer). */
export const detailCsvName = (q: RcvQuery) => `RCV_${q.operacion}_${q.estado}_${q.rut}_${q.periodo}.csv`;

export interface DetailTypes {
  types: number[];
  withoutDetail: number[];
  /** Documents per type as the summary counts them, when the summary was read. */
  counted: Map<number, number> | null;
  /** The summary's row of each type, when every type was read from it (`dte` 0): the detail must add up to it. */
  summary?: Map<number, ResumenRow>;
}

/** The summary's rows of this side and state. */
async function summaryRows(ctx: SiiContext, jar: CookieJar, q: RcvQuery): Promise<Record<string, unknown>[]> {
  const summary = await rcvSummary(ctx, jar, q);
  return Array.isArray(summary.data) ? (summary.data as Record<string, unknown>[]) : [];
}

const countsOf = (rows: Record<string, unknown>[]) => new Map(rows.map((r) => [Number(r.rsmnTipoDocInteger), Number(r.rsmnTotDoc) || 0]));

/**
 * The types to read (with `dte` 0: every type the summary lists with detail), and those kept only
 * as totals. The summary is read for one type too: its count of documents is what the detail is
 * charged for before it is read (and the most rows the detail may bring).
 */
async function detailTypes(ctx: SiiContext, jar: CookieJar, q: RcvQuery, dte: number): Promise<DetailTypes> {
  const answer = await rcvSummary(ctx, jar, q);
  const resumen = resumenRows(answer);
  if (dte !== 0) return { types: [dte], withoutDetail: [], counted: new Map(resumen.map((r) => [r.tipo_documento, r.documentos])) };
  const summary = new Map(resumen.map((r) => [r.tipo_documento, r]));
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

/**
 * The documents the summary counts of the types to read: what the detail is charged for. A type's
 * detail that brings more than its count is refused at the first row past it (SII_FORMAT_CHANGED),
 * so no row is read or written that was not paid for.
 */
const countedRows = (known: DetailTypes) => known.types.reduce((sum, tipo) => sum + (known.counted?.get(tipo) ?? 0), 0);

function checkWithinCount(tipo: number, documents: number, known: DetailTypes): void {
  const counted = known.counted?.get(tipo) ?? 0;
  if (documents > counted) {
    throw formatChanged(rcvService("getDetalleCompra"), `type ${tipo}: the detail has more documents than the summary's ${counted}`);
  }
}

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
 * `registros` follows `documentos`: it is known only at the end. `keepRawChars`: the SII's rows kept
 * to answer `sii.data` from the same read (the caller's to size by what it buffers); past it a second read streams them.
 * `pay` takes the units for the documents the summary counts, before any detail is read.
 */
export async function* detailJson(
  ctx: SiiContext,
  jar: CookieJar,
  q: RcvQuery,
  dte: number,
  keepRawChars: number,
  pay: PayRows,
): AsyncGenerator<string> {
  const known = await detailTypes(ctx, jar, q, dte);
  await pay(countedRows(known));
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
      checkWithinCount(tipo, sums.documentos + 1, known);
      const doc = keys.check(detalleRow(raw, q.estado));
      sums.documentos++;
      for (const key of ["monto_exento", "monto_neto", "monto_iva", "monto_total"] as const) sums[key] += doc[key];
      print = fingerprint(print, documentKey(doc));
      yield `${count++ ? "," : ""}${JSON.stringify(doc)}`;
      if (kept) {
        const text = JSON.stringify(raw);
        keptChars += text.length;
        if (keptChars > keepRawChars) kept = null;
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
        // More documents than the first read are a changed register: stop at the first one past it.
        if (again === count) changedRegister(count, again + 1);
        reprint = fingerprint(reprint, documentKey(detalleRow(raw, q.estado)));
        yield `${again++ ? "," : ""}${JSON.stringify(raw)}`;
      }
    }
    if (again !== count || reprint !== print) changedRegister(count, again);
  }
  yield `]}},"timestamp":${JSON.stringify(new Date().toISOString())}}`;
}

function changedRegister(first: number, second: number): never {
  throw new Error(`the SII's register changed while it was read twice (${first} documents, then ${second})`);
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
        if (!done) continue;
        // A document past the declared count (what was paid for) stops the file there.
        if (count === job.registros) checkFileCount(job, count + 1);
        yield `${count++ ? "," : ""}${JSON.stringify(done)}`;
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

/** A download's state as answered: the job without the SII's opaque blob. */
export const plainJob = ({ blob: _blob, ...job }: AsyncJob) => job;

/** Asks the SII to prepare the period's file. */
export async function requestDownload(ctx: SiiContext, jar: CookieJar, q: AsyncQuery) {
  return plainJob(await requestAsync(ctx, jar, q));
}

/** The download's state. */
export async function downloadState(ctx: SiiContext, jar: CookieJar, q: AsyncQuery, solicitudId: number) {
  return plainJob(await asyncJob(ctx, jar, q, solicitudId));
}

/**
 * The finished file's documents, as the pieces of the success envelope; a 400 while the SII still
 * prepares it. `pay` takes the units for the documents the request declares (caNumLineas) before
 * the file is fetched.
 */
export async function downloadDocuments(
  ctx: SiiContext,
  jar: CookieJar,
  q: AsyncQuery,
  solicitudId: number,
  pay: PayRows,
): Promise<AsyncGenerator<string>> {
  const job = await asyncJob(ctx, jar, q, solicitudId);
  if (job.estado !== "TERMINADO") {
    throw new ApiError(400, "VALIDATION_ERROR", `Download ${job.solicitud_id} is ${job.estado}, not TERMINADO yet; poll its state`, {
      details: { estado: job.estado },
    });
  }
  await pay(job.registros);
  const lines = await asyncFileLines(ctx, jar, q, job);
  return documentsJson(job, lines, q);
}
