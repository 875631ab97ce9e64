// The SII's yearly appraisal workbooks of vehicles (docs/sii-services.md §11.1): light (`liv`) and heavy
// (`pes`) vehicles, public XLSX files of about 7 MB and 80 000 rows. Downloaded as bytes (the ZIP's
// directory is at its end), then read row by row; columns are found by their header text, since
// the header row moves (row 12 in 2026) and heavy vehicles lack some columns.

import { ApiError } from "../lib/api-error.ts";
import { concatBytes } from "../lib/encoding.ts";
import { decodeLatin1 } from "../lib/latin1.ts";
import { type CellValue, sheetRows } from "../lib/xlsx.ts";
import { looksLikeZip } from "../lib/zip.ts";
import { checkSiiPage, pageText, type SiiContext, siiRead } from "./http.ts";

export type WorkbookKind = "liv" | "pes";
export const WORKBOOK_KINDS: readonly WorkbookKind[] = ["liv", "pes"];

/** The first year the SII publishes as XLSX; earlier years are ZIP files of another layout. */
export const FIRST_APPRAISAL_YEAR = 2020;
/** No appraisal workbook is near this; past it the answer is not one. */
export const MAX_WORKBOOK_BYTES = 64 * 1024 * 1024;

export const TEXT_FIELDS = [
  "codigo",
  "tipo",
  "marca",
  "modelo",
  "version",
  "combustible",
  "transmision",
  "traccion",
  "pais",
  "equipamiento",
  "observacion",
] as const;
const NUMBER_FIELDS = ["anio", "puertas", "cilindrada", "potencia", "marchas", "carga", "pasajeros", "tasacion", "permiso"] as const;

export type TextField = (typeof TEXT_FIELDS)[number];
export type NumberField = (typeof NUMBER_FIELDS)[number];
export type AppraisalField = TextField | NumberField;

/** One vehicle of a workbook; a column the workbook lacks is null. */
export type AppraisalRow = { [K in TextField]: string | null } & { [K in NumberField]: number | null };

const isTextField = (field: AppraisalField): field is TextField => (TEXT_FIELDS as readonly string[]).includes(field);

/** `Tasación 2026` → `tasacion`: lower case, no accents, no units, the year left out. */
function normalizeHeader(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/\(.*?\)/g, "")
    .trim();
}

/** The field a header names, by the start of its text. */
const HEADER_PREFIXES: [string, AppraisalField][] = [
  ["codigo", "codigo"],
  ["ano", "anio"],
  ["tipo", "tipo"],
  ["marca", "marca"],
  ["modelo", "modelo"],
  ["version", "version"],
  ["puertas", "puertas"],
  ["cilindrada", "cilindrada"],
  ["potencia", "potencia"],
  ["combustible", "combustible"],
  ["transmision", "transmision"],
  ["marchas", "marchas"],
  ["traccion", "traccion"],
  ["pais", "pais"],
  ["equipamiento", "equipamiento"],
  ["carga", "carga"],
  ["pasajeros", "pasajeros"],
  ["tasacion", "tasacion"],
  ["permiso", "permiso"],
  ["observacion", "observacion"],
];

const REQUIRED: AppraisalField[] = ["codigo", "anio", "tipo", "marca", "modelo", "tasacion"];

/** Column index by field, when `cells` is the header row. */
function headerColumns(cells: CellValue[]): Map<AppraisalField, number> | null {
  const columns = new Map<AppraisalField, number>();
  cells.forEach((cell, index) => {
    if (typeof cell !== "string") return;
    const name = normalizeHeader(cell);
    const field = HEADER_PREFIXES.find(([prefix]) => name.startsWith(prefix))?.[1];
    if (field && !columns.has(field)) columns.set(field, index);
  });
  return REQUIRED.every((field) => columns.has(field)) ? columns : null;
}

const text = (cell: CellValue | undefined): string | null => {
  if (cell === null || cell === undefined) return null;
  const value = String(cell).replace(/\s+/g, " ").trim();
  return value === "" ? null : value;
};

/** Numbers may come as text with thousands dots (`12.345.000`) or a currency sign. */
const number = (cell: CellValue | undefined): number | null => {
  if (typeof cell === "number") return Number.isFinite(cell) ? cell : null;
  const clean = text(cell)?.replace(/[$\s]/g, "").replace(/\./g, "").replace(",", ".");
  if (!clean) return null;
  const value = Number(clean);
  return Number.isFinite(value) ? value : null;
};

/** The vehicles of a workbook, in its order. Rows before the header and rows without a code are skipped. */
export async function* appraisalRows(workbook: Uint8Array): AsyncGenerator<AppraisalRow> {
  let columns: Map<AppraisalField, number> | null = null;
  const fields = HEADER_PREFIXES.map(([, field]) => field);
  for await (const { cells } of sheetRows(workbook)) {
    if (!columns) {
      columns = headerColumns(cells);
      continue;
    }
    const row = {} as Record<AppraisalField, string | number | null>;
    for (const field of fields) {
      const index = columns.get(field);
      const cell = index === undefined ? null : cells[index];
      row[field] = isTextField(field) ? text(cell) : number(cell);
    }
    if (row.codigo !== null) yield row as AppraisalRow;
  }
  if (!columns) throw new Error("the workbook has no header row with Código SII, Año, Tipo, Marca, Modelo and Tasación");
}

export const workbookUrl = (kind: WorkbookKind, anio: number) =>
  `https://www.sii.cl/servicios_online/tasacion_fiscal_vehiculos/${kind}${anio}.xlsx`;

/** A workbook's bytes, or null when the SII has not published it (404). One retry after a failed transfer. */
export function downloadWorkbook(ctx: SiiContext, kind: WorkbookKind, anio: number): Promise<Uint8Array | null> {
  const service = "vehiculos";
  return siiRead(ctx, new Request(workbookUrl(kind, anio)), { service, read: true }, async (res) => {
    const bytes = await boundedBytes(res);
    if (res.status === 404) return null;
    if (res.status === 200 && looksLikeZip(bytes)) return bytes;
    // Anything else is one of the SII's pages: maintenance, throttling, an error.
    const page = decodeLatin1(bytes.subarray(0, 64 * 1024));
    checkSiiPage(service, { status: res.status, headers: res.headers, text: page });
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII did not hand over the appraisal workbook", {
      details: { service, sii_status: res.status, sii_message: pageText(page) },
    });
  });
}

async function boundedBytes(res: Response): Promise<Uint8Array> {
  const tooLarge = () => new Error(`the SII's file is larger than ${MAX_WORKBOOK_BYTES} bytes`);
  if (Number(res.headers.get("content-length") ?? 0) > MAX_WORKBOOK_BYTES) throw tooLarge();
  const parts: Uint8Array[] = [];
  let total = 0;
  const reader = res.body?.getReader();
  for (let next = await reader?.read(); next && !next.done; next = await reader?.read()) {
    total += next.value.length;
    if (total > MAX_WORKBOOK_BYTES) throw tooLarge();
    parts.push(next.value);
  }
  return concatBytes(parts);
}
