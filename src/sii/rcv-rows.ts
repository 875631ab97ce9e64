// The facade's JSON rows read by key (getResumen, getDetalleCompra/Venta): a required key missing, an
// amount that is not a number, a type or document given twice, or a count the rows do not add up to
// is the SII's answer changing shape, answered as SII_FORMAT_CHANGED and never as other numbers.
// Which keys are required: the ones every public client reads (sergiokml/PortalFacturas
// `Models/DetalleReq.cs`, crilam/mcp-sii `src/scrapers/rcv.ts`); the others may be absent or null
// (the SII's own samples leave most amounts null: apigatewaycl/apigateway-api-client-python
// `apigatewaycl/api_client/sii/rcv.py`), and null is read as 0. The synchronous detail is held to
// what the summary promises (types, counts, sums) and a second read to the first (the same
// documents in the same order); src/services/rcv-detail.ts writes the answer from these readers.
import { formatChanged } from "./format-changed.ts";
import { type FacadeAnswer, rcvService } from "./rcv-facade.ts";

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

export const CREDIT_NOTES = new Set([60, 61, 112]);
/** A number from a value the SII may leave empty (null, absent or ""): 0 then. */
export const n = (value: unknown) => (typeof value === "number" ? value : Number(value ?? 0) || 0);

const excerpt = (row: unknown) => JSON.stringify(row).slice(0, 300);

/** The value of a key the reader cannot do without: present and not null, else SII_FORMAT_CHANGED. */
function required(service: string, row: Record<string, unknown>, key: string, what: string): unknown {
  const value = row[key];
  if (value === undefined || value === null) throw formatChanged(service, `${what} has no "${key}"`, excerpt(row));
  return value;
}

/** A number the SII sends as a number or numeric text; null or absent is 0, anything else SII_FORMAT_CHANGED. */
function amount(service: string, row: Record<string, unknown>, key: string, what: string): number {
  const value = row[key];
  if (value === undefined || value === null || value === "") return 0;
  const number = typeof value === "number" ? value : typeof value === "string" ? Number(value.trim()) : Number.NaN;
  if (!Number.isFinite(number)) throw formatChanged(service, `${what}'s "${key}" is not a number`, excerpt(row));
  return number;
}

/** A code the SII may leave empty (read as 0): null then, never a code 0 the SII did not send. */
export const code = (value: number): number | null => (value === 0 ? null : value);

/** The answer's `data` as rows: an array, or nothing (null/absent, as with codRespuesta 3). */
export function dataRows(answer: FacadeAnswer, service: string): Record<string, unknown>[] {
  const data = answer.data;
  if (data === undefined || data === null) return [];
  if (!Array.isArray(data) || data.some((row) => typeof row !== "object" || row === null || Array.isArray(row))) {
    throw formatChanged(service, "data is not a list of rows", excerpt(data));
  }
  return data as Record<string, unknown>[];
}

/**
 * The summary's rows: one per document type; `totDocRes`, when the SII sends it, is the sum of the
 * rows' `rsmnTotDoc` (so in every public sample: docs/sii-services.md §7.3, crilam/mcp-sii
 * `test/scrapers/rcv.test.ts`; LibreDTE's worker reads it as the period's document count).
 */
export function resumenRows(answer: FacadeAnswer): ResumenRow[] {
  const service = rcvService("getResumen");
  const seen = new Set<number>();
  const rows = dataRows(answer, service).map((row) => {
    const what = "a summary row";
    const tipo = amount(service, row, "rsmnTipoDocInteger", what);
    required(service, row, "rsmnTipoDocInteger", what);
    required(service, row, "rsmnTotDoc", what);
    required(service, row, "rsmnMntTotal", what);
    if (seen.has(tipo)) throw formatChanged(service, `document type ${tipo} has two summary rows`, excerpt(row));
    seen.add(tipo);
    return {
      tipo_documento: tipo,
      nombre_documento: String(row.dcvNombreTipoDoc ?? ""),
      tipo_ingreso: String(row.dcvTipoIngresoDoc ?? ""),
      documentos: amount(service, row, "rsmnTotDoc", what),
      monto_exento: amount(service, row, "rsmnMntExe", what),
      monto_neto: amount(service, row, "rsmnMntNeto", what),
      monto_iva: amount(service, row, "rsmnMntIVA", what),
      monto_iva_no_recuperable: amount(service, row, "rsmnMntIVANoRec", what),
      iva_uso_comun: amount(service, row, "rsmnIVAUsoComun", what),
      monto_total: amount(service, row, "rsmnMntTotal", what),
      nota_credito: CREDIT_NOTES.has(tipo),
    };
  });
  if (typeof answer.totDocRes === "number") {
    const sum = rows.reduce((total, r) => total + r.documentos, 0);
    if (sum !== answer.totDocRes) {
      throw formatChanged(service, `totDocRes is ${answer.totDocRes} but the rows count ${sum} documents`);
    }
  }
  return rows;
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
  /** The recoverable VAT (purchases) or the VAT (sales). */
  monto_iva: number;
  /** Purchases: the VAT that gives no credit (all of it in NO_INCLUIR); sales have none (0). */
  monto_iva_no_recuperable: number;
  /** Purchases: why it is not recoverable (the SII's code, e.g. 9); null when there is none. */
  codigo_iva_no_recuperable: number | null;
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

/** `estado`: the state the detail was asked for (sales: REGISTRO), answered when the SII sends none. */
export function detalleRows(rows: Record<string, unknown>[], estado: string): DetalleRow[] {
  const keys = new DocumentKeys(rcvService("getDetalleCompra"));
  return rows.map((row) => keys.check(detalleRow(row, estado)));
}

/**
 * A detail row. `estado` is the SII's `dcvEstadoContab` when it sends one; the SII's own answer
 * carries `dcvEstadoContab: null` (apigatewaycl/apigateway-api-client-python
 * `apigatewaycl/api_client/sii/rcv.py`, samples of getDetalleCompra and getDetalleVenta), and
 * the detail is read per state (the request's `estadoContab`), so the state asked for is the rows'
 * state: that is answered, never "".
 */
export function detalleRow(row: Record<string, unknown>, estado: string): DetalleRow {
  const service = rcvService("getDetalleCompra");
  const what = "a detail row";
  for (const key of ["detTipoDoc", "detNroDoc", "detRutDoc", "detDvDoc", "detMntTotal"]) required(service, row, key, what);
  const tipo = amount(service, row, "detTipoDoc", what);
  return {
    tipo_documento: tipo,
    folio: amount(service, row, "detNroDoc", what),
    rut: `${row.detRutDoc}-${String(row.detDvDoc).toUpperCase()}`,
    razon_social: String(row.detRznSoc ?? ""),
    fecha: isoDate(row.detFchDoc) ?? String(row.detFchDoc ?? ""),
    fecha_recepcion: isoDate(row.detFecRecepcion),
    monto_exento: amount(service, row, "detMntExe", what),
    monto_neto: amount(service, row, "detMntNeto", what),
    monto_iva: amount(service, row, "detMntIVA", what),
    // The non-recoverable VAT and its code: `detMntIVANoRec`, `detMntCodNoRec` (sergiokml/PortalFacturas
    // `Datum`; docs/sii-services.md §7.4). A NO_INCLUIR purchase carries its VAT only there.
    monto_iva_no_recuperable: amount(service, row, "detMntIVANoRec", what),
    codigo_iva_no_recuperable: code(amount(service, row, "detMntCodNoRec", what)),
    monto_total: amount(service, row, "detMntTotal", what),
    estado: typeof row.dcvEstadoContab === "string" && row.dcvEstadoContab.trim() !== "" ? row.dcvEstadoContab : estado,
    nota_credito: CREDIT_NOTES.has(tipo),
  };
}

/**
 * One document per key (type, folio, counterpart): the register has each document once, so a key
 * seen twice is a misread answer. Suppliers share folio numbers, so the counterpart is part of the
 * key (cordada/lib-cl-sii-python `src/tests/test_data/sii-rcv/RCV-venta-extra-empty-impuestos-rows.csv`
 * has folio 3210 of type 33 for two customers). The keys of the first MAX_KEYED_DOCUMENTS documents
 * are kept, so memory stays flat for a file of any size (a 100 000-document download passes
 * through a document at a time); past them a file is still held to its declared count (caNumLineas).
 */
export const MAX_KEYED_DOCUMENTS = 10_000;

export class DocumentKeys {
  private readonly seen = new Set<string>();
  private readonly service: string;
  constructor(service: string) {
    this.service = service;
  }

  check<T extends { tipo_documento: number; folio: number; rut: string }>(doc: T): T {
    const key = `${doc.tipo_documento}|${doc.folio}|${doc.rut}`;
    if (this.seen.has(key)) {
      throw formatChanged(this.service, `document ${doc.tipo_documento} n° ${doc.folio} of ${doc.rut} comes twice`);
    }
    if (this.seen.size < MAX_KEYED_DOCUMENTS) this.seen.add(key);
    return doc;
  }
}

export interface DetailTypes {
  types: number[];
  withoutDetail: number[];
  /** Documents per type as the summary counts them, when the summary was read. */
  counted: Map<number, number> | null;
  /** The summary's row of each type, when every type was read from it (`dte` 0): the detail must add up to it. */
  summary?: Map<number, ResumenRow>;
}

/** The summary's rows of this side and state. */
export const summaryRows = (summary: FacadeAnswer): Record<string, unknown>[] =>
  Array.isArray(summary.data) ? (summary.data as Record<string, unknown>[]) : [];

export const countsOf = (rows: Record<string, unknown>[]) =>
  new Map(rows.map((r) => [Number(r.rsmnTipoDocInteger), Number(r.rsmnTotDoc) || 0]));

/**
 * The types to read (with `dte` 0: every type the summary lists with detail), and those kept only
 * as totals, from the summary's `answer`. The summary is read for one type too: its count of
 * documents is what the detail is charged for before it is read (and the most rows the detail may bring).
 */
export function detailTypes(answer: FacadeAnswer, dte: number): DetailTypes {
  const resumen = resumenRows(answer);
  if (dte !== 0) return { types: [dte], withoutDetail: [], counted: new Map(resumen.map((r) => [r.tipo_documento, r.documentos])) };
  const summary = new Map(resumen.map((r) => [r.tipo_documento, r]));
  const rows = summaryRows(answer);
  return {
    types: rows.filter((r) => r.rsmnLink !== false).map((r) => Number(r.rsmnTipoDocInteger)),
    withoutDetail: rows.filter((r) => r.rsmnLink === false).map((r) => Number(r.rsmnTipoDocInteger)),
    counted: countsOf(rows),
    summary,
  };
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
export const countedRows = (known: DetailTypes) => known.types.reduce((sum, tipo) => sum + (known.counted?.get(tipo) ?? 0), 0);

function checkWithinCount(service: string, tipo: number, documents: number, known: DetailTypes): void {
  const counted = known.counted?.get(tipo) ?? 0;
  if (documents > counted) {
    throw formatChanged(service, `type ${tipo}: the detail has more documents than the summary's ${counted}`);
  }
}

/** What identifies a document: the second read must bring the same documents in the same order. */
const documentKey = (d: DetalleRow) => `${d.tipo_documento}|${d.folio}|${d.rut}|${d.monto_total}`;

/** FNV-1a's offset basis: the fingerprint of no documents. */
const NO_DOCUMENTS = 2166136261;

/** FNV-1a over the documents' keys, in order. */
function fingerprint(hash: number, text: string): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The first read of a detail, across its types: each document once, and their count and fingerprint (what a second read must bring again). */
export interface FirstRead {
  service: string;
  keys: DocumentKeys;
  documents: number;
  print: number;
}

/** `service`: the detail's, as its errors name it. */
export const firstRead = (service: string): FirstRead => ({ service, keys: new DocumentKeys(service), documents: 0, print: NO_DOCUMENTS });

/**
 * The detail `rows` of type `tipo` as they arrive, each checked and normalized (`estado` as
 * `detalleRow` takes it) beside the SII's own: within the summary's count, each document once
 * across `first`'s types, and (rows read) their sums held to the summary's row at the end. An
 * empty type is the caller's to judge.
 */
export async function* typeDetail(
  rows: AsyncIterable<Record<string, unknown>>,
  estado: string,
  tipo: number,
  known: DetailTypes,
  first: FirstRead,
): AsyncGenerator<{ doc: DetalleRow; raw: Record<string, unknown> }> {
  const sums = { documentos: 0, monto_exento: 0, monto_neto: 0, monto_iva: 0, monto_total: 0 };
  for await (const raw of rows) {
    checkWithinCount(first.service, tipo, sums.documentos + 1, known);
    const doc = first.keys.check(detalleRow(raw, estado));
    sums.documentos++;
    for (const key of ["monto_exento", "monto_neto", "monto_iva", "monto_total"] as const) sums[key] += doc[key];
    first.documents++;
    first.print = fingerprint(first.print, documentKey(doc));
    yield { doc, raw };
  }
  if (sums.documentos) checkAgainstSummary(first.service, tipo, sums, known.summary?.get(tipo));
}

/**
 * The detail rows of `types` read again (`detail` reads one type's), as they arrive: the same
 * documents as `first`, in the same order (count and fingerprint); if the register changed in
 * between, the read stops (at the first document past the first read's, else at the end) rather
 * than contradict the first.
 */
export async function* secondRead(
  detail: (tipo: number) => AsyncIterable<Record<string, unknown>>,
  estado: string,
  types: number[],
  first: FirstRead,
): AsyncGenerator<Record<string, unknown>> {
  let again = 0;
  let reprint = NO_DOCUMENTS;
  for (const tipo of types) {
    for await (const raw of detail(tipo)) {
      // More documents than the first read are a changed register: stop at the first one past it.
      if (again === first.documents) changedRegister(first.documents, again + 1);
      reprint = fingerprint(reprint, documentKey(detalleRow(raw, estado)));
      again++;
      yield raw;
    }
  }
  if (again !== first.documents || reprint !== first.print) changedRegister(first.documents, again);
}

function changedRegister(first: number, second: number): never {
  throw new Error(`the SII's register changed while it was read twice (${first} documents, then ${second})`);
}
