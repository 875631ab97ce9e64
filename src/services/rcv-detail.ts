// The RCV's synchronous detail as the gateway composes it from the SII's services, with no HTTP:
// summary → types → detail → empty-type check → second read, written as the pieces of the answer's
// `data` (JSON), or the SII's own export (CSV). src/services/rcv.ts runs them in a session and holds them.
import { neutralizeCsvLine } from "../lib/csv.ts";
import { ApiError } from "../platform/errors.ts";
import { COMMIT_CHARS } from "../platform/stream.ts";
import type { CookieJar } from "../sii/cookies.ts";
import { formatChanged } from "../sii/format-changed.ts";
import type { SiiContext } from "../sii/http.ts";
import {
  type DetalleRow,
  detalleRow,
  type RcvQuery,
  type ResumenRow,
  rcvDetail,
  rcvExport,
  rcvService,
  rcvSummary,
  resumenRows,
} from "../sii/rcv.ts";
import { DocumentKeys } from "../sii/rcv-rows.ts";
import type { PayRows } from "./rcv-charge.ts";

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

/**
 * The SII service a detail is read from, as its errors name it: `getDetalleCompra` for purchases,
 * `getDetalleVenta` for sales (two methods of the portal's facade, docs/sii-services.md §7.2 and
 * §7.4, seen in crilam/mcp-sii `docs/superpowers/specs/2026-08-26-ronda-1-rcv-design.md`; the one
 * src/sii/rcv.ts `rcvDetail` calls for each side).
 */
const detailService = (q: RcvQuery) => rcvService(q.operacion === "COMPRA" ? "getDetalleCompra" : "getDetalleVenta");

/** The SII's rows kept to answer `sii.data` from the same read (a quarter of what an answer holds before streaming). */
const KEEP_RAW_CHARS = COMMIT_CHARS / 4;

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
        service: detailService(q),
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
  service: string,
  tipo: number,
  sums: Record<"documentos" | "monto_exento" | "monto_neto" | "monto_iva" | "monto_total", number>,
  row?: ResumenRow,
): void {
  if (!row) return;
  for (const key of ["documentos", "monto_exento", "monto_neto", "monto_iva", "monto_total"] as const) {
    if (sums[key] !== row[key]) {
      throw formatChanged(service, `type ${tipo}: the detail's ${key} is ${sums[key]} but the summary's ${row[key]}`);
    }
  }
}

/**
 * The documents the summary counts of the types to read: what the detail is charged for. A type's
 * detail that brings more than its count is refused at the first row past it (SII_FORMAT_CHANGED),
 * so no row is read or written that was not paid for.
 */
const countedRows = (known: DetailTypes) => known.types.reduce((sum, tipo) => sum + (known.counted?.get(tipo) ?? 0), 0);

function checkWithinCount(service: string, tipo: number, documents: number, known: DetailTypes): void {
  const counted = known.counted?.get(tipo) ?? 0;
  if (documents > counted) {
    throw formatChanged(service, `type ${tipo}: the detail has more documents than the summary's ${counted}`);
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
 * The detail's `data`, written as the SII's rows arrive: the normalized `documentos`, then the
 * SII's own rows in `sii.data` (documented as kept so nothing is lost). JSON cannot interleave two
 * arrays, so a period too large to hold is read from the SII twice: once for `documentos`, once for
 * `sii.data`. The second read must bring the same documents (count and fingerprint); if the
 * register changed in between, the answer is aborted rather than contradict itself.
 * `registros` follows `documentos`: it is known only at the end. Past KEEP_RAW_CHARS of the SII's
 * rows kept from the first read, a second read streams them.
 * `pay` takes the units for the documents the summary counts, before any detail is read.
 */
export async function* detailJson(ctx: SiiContext, jar: CookieJar, q: RcvQuery, dte: number, pay: PayRows): AsyncGenerator<string> {
  const known = await detailTypes(ctx, jar, q, dte);
  await pay(countedRows(known));
  const head = { rut: q.rut, periodo: q.periodo, operacion: q.operacion, estado: q.estado, sin_detalle: known.withoutDetail };
  yield `${JSON.stringify(head).slice(0, -1)},"documentos":[`;
  let count = 0;
  let print = 2166136261;
  let kept: string[] | null = [];
  let keptChars = 0;
  const service = detailService(q);
  const keys = new DocumentKeys(service);
  for (const tipo of known.types) {
    const before = count;
    const sums = { documentos: 0, monto_exento: 0, monto_neto: 0, monto_iva: 0, monto_total: 0 };
    for await (const raw of rcvDetail(ctx, jar, q, tipo)) {
      checkWithinCount(service, tipo, sums.documentos + 1, known);
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
    else checkAgainstSummary(service, tipo, sums, known.summary?.get(tipo));
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
  yield "]}}";
}

function changedRegister(first: number, second: number): never {
  throw new Error(`the SII's register changed while it was read twice (${first} documents, then ${second})`);
}
