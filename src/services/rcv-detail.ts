// The RCV's synchronous detail as the gateway composes it from the SII's services, with no HTTP:
// summary → types → detail → empty-type check → second read, written as the pieces of the answer's
// `data` (JSON), or the SII's own export (CSV). What the SII's data promises (counts, sums, the
// same documents on a second read) is checked by its readers in src/sii/rcv-rows.ts; an empty
// type's 502 names the asynchronous route, so it is judged here. src/services/rcv.ts runs them in a
// session and holds them.
import { neutralizeCsvLine } from "../lib/csv.ts";
import { ApiError } from "../platform/errors.ts";
import { COMMIT_CHARS } from "../platform/stream.ts";
import type { CookieJar } from "../sii/cookies.ts";
import type { SiiContext } from "../sii/http.ts";
import { type RcvQuery, rcvDetail, rcvExport, rcvService, rcvSummary, resumenRows } from "../sii/rcv.ts";
import { countedRows, countsOf, type DetailTypes, detailTypes, firstRead, secondRead, summaryRows, typeDetail } from "../sii/rcv-rows.ts";
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

/**
 * Past a ceiling the synchronous detail answers no rows instead of an error (public clients: about
 * 393 documents, the transport cut at 4 MiB; crilam/mcp-sii `src/scrapers/rcvAsync.ts` header). A
 * type that came back empty is checked against the summary: if the summary counts documents, the
 * answer is a 502 that points to the asynchronous download, never an empty period.
 */
export async function checkEmptyType(ctx: SiiContext, jar: CookieJar, q: RcvQuery, tipo: number, known: DetailTypes): Promise<void> {
  const counted = (known.counted ?? countsOf(summaryRows(await rcvSummary(ctx, jar, q)))).get(tipo) ?? 0;
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
  const known = detailTypes(await rcvSummary(ctx, jar, q), dte);
  await pay(countedRows(known));
  const head = { rut: q.rut, periodo: q.periodo, operacion: q.operacion, estado: q.estado, sin_detalle: known.withoutDetail };
  yield `${JSON.stringify(head).slice(0, -1)},"documentos":[`;
  let kept: string[] | null = [];
  let keptChars = 0;
  const first = firstRead(detailService(q));
  for (const tipo of known.types) {
    const before = first.documents;
    for await (const { doc, raw } of typeDetail(rcvDetail(ctx, jar, q, tipo), q.estado, tipo, known, first)) {
      yield `${first.documents > 1 ? "," : ""}${JSON.stringify(doc)}`;
      if (kept) {
        const text = JSON.stringify(raw);
        keptChars += text.length;
        if (keptChars > KEEP_RAW_CHARS) kept = null;
        else kept.push(text);
      }
    }
    if (first.documents === before) await checkEmptyType(ctx, jar, q, tipo, known);
  }
  yield `],"registros":${first.documents},"sii":{"data":[`;
  if (kept) yield kept.join(",");
  else {
    let again = 0;
    const detail = (tipo: number) => rcvDetail(ctx, jar, q, tipo);
    for await (const raw of secondRead(detail, q.estado, known.types, first)) yield `${again++ ? "," : ""}${JSON.stringify(raw)}`;
  }
  yield "]}}";
}
