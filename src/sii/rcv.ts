// The RCV operations' SII calls (docs/sii-services.md §7): the facade's transport is rcv-facade.ts,
// its JSON rows are read in rcv-rows.ts, its CSV in rcv-csv.ts, the asynchronous download in
// rcv-async.ts; this module builds each operation's requests and re-exports what the routes use.
import { ApiError } from "../lib/api-error.ts";
import type { CookieJar } from "./cookies.ts";
import { formatChanged } from "./format-changed.ts";
import type { SiiContext } from "./http.ts";
import { CsvDocuments } from "./rcv-csv.ts";
import {
  BOLETAS_SERVICE,
  COMPRAS_SERVICE,
  checkFacadeAnswer,
  complementoCall,
  type FacadeAnswer,
  rcvCall,
  rcvRows,
  rcvService,
} from "./rcv-facade.ts";
import { type DetalleRow, DocumentKeys, dataRows, detalleRow, n } from "./rcv-rows.ts";

export {
  type AsyncJob,
  type AsyncQuery,
  asyncFileLines,
  asyncJob,
  checkFileCount,
  controlOf,
  controlsOf,
  MAX_ASYNC_FILE_BYTES,
  MAX_CSV_LINE,
  requestAsync,
} from "./rcv-async.ts";
export { type CsvDocument, CsvDocuments, csvColumns, csvDocuments, type OtroImpuesto, type Side } from "./rcv-csv.ts";
export {
  BOLETAS_SERVICE,
  COMPRAS_SERVICE,
  complementoCall,
  conversationId,
  type FacadeAnswer,
  MAX_FACADE_ROW_BYTES,
  rcvCall,
  rcvRows,
  rcvService,
} from "./rcv-facade.ts";
export { type DetalleRow, detalleRow, detalleRows, isoDate, type ResumenRow, resumenRows } from "./rcv-rows.ts";

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
export async function rcvSetTransactionType(
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
export async function rcvDailyReceipts(ctx: SiiContext, jar: CookieJar, rut: string, periodo: string, tipo: number): Promise<BoletasMes> {
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

/**
 * The SII's CSV export of one type (`getDetalle*Export`): its lines as received, ISO-8859-1 text,
 * each read as the asynchronous file is (rcv-csv.ts) before it is passed on, so a header without
 * the columns the register has, a line that lost cells or a document twice stops the answer
 * (SII_FORMAT_CHANGED while it is still held) instead of handing on a file of another layout.
 * `most`: the documents the summary counts (what the export was charged for); a document past
 * them is SII_FORMAT_CHANGED too, its line not passed on.
 */
export async function* rcvExport(ctx: SiiContext, jar: CookieJar, q: RcvQuery, tipo: number, most: number): AsyncGenerator<string> {
  const method = q.operacion === "COMPRA" ? "getDetalleCompraExport" : "getDetalleVentaExport";
  const service = rcvService(method);
  let reader: CsvDocuments | undefined;
  const checkCount = (documents: number) => {
    if (documents > most) throw formatChanged(service, `the export has more documents than the summary's ${most}`);
  };
  for await (const row of rcvRows(ctx, jar, method, detailFields(q, tipo, "RCV_DDETC", "RCV_DDETV"))) {
    const line = String(row);
    if (line.trim() === "") continue;
    if (!reader) reader = new CsvDocuments(line, q.estado, service, q.operacion);
    // A line that starts a document completes the one before it (counted), and is itself one more.
    else if (reader.push(line) || reader.count === 0) checkCount(reader.count + 1);
    yield line;
  }
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
  payRows: (read: number) => Promise<void>,
): Promise<{ rows: Record<string, unknown>[]; documentos: DetalleRow[]; emptyStates: string[] }> {
  const rows: Record<string, unknown>[] = [];
  const documentos: DetalleRow[] = [];
  const emptyStates: string[] = [];
  let read = 0;
  // A document is in one state: the same key in two states' answers is a misread register.
  const keys = new DocumentKeys(rcvService("getDetalleCompra"));
  for (const estado of RCV_ESTADOS) {
    const fields = detailFields({ ...q, operacion: "COMPRA", estado }, tipo, "RCV_DETC", "RCV_DETV");
    const answer = await rcvCall(ctx, jar, "getDetalleCompra", fields);
    const data = dataRows(answer, rcvService("getDetalleCompra"));
    if (!data.length) emptyStates.push(estado);
    // Paid for before they are checked: every state's documents are read to find the folio.
    read += data.length;
    await payRows(read);
    for (const row of data) {
      // Every row is read (a row without its keys is refused whichever folio it has); the state is the one asked for.
      const doc = keys.check(detalleRow(row, estado));
      if (doc.folio !== folio) continue;
      rows.push(row);
      documentos.push(doc);
    }
  }
  return { rows, documentos, emptyStates };
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
      cambios.push({ ...doc, data: await rcvSetTransactionType(ctx, jar, rut, periodo, doc) });
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
