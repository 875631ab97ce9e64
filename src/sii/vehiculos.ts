// The SII's yearly appraisal workbooks of vehicles (docs/sii-services.md §11.1): light (`liv`) and heavy
// (`pes`) vehicles, public XLSX files of about 7 MB and 80 000 rows. Downloaded as bytes (the ZIP's
// directory is at its end), then read row by row; columns are found by their header text, since
// the header row moves (row 12 in 2026) and heavy vehicles lack some columns.

import { ApiError } from "../lib/api-error.ts";
import { concatBytes } from "../lib/encoding.ts";
import { decodeLatin1 } from "../lib/latin1.ts";
import { type CellValue, openSheet } from "../lib/xlsx.ts";
import { looksLikeZip } from "../lib/zip.ts";
import { formatChanged } from "./format-changed.ts";
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

/** The order of a vehicle's values as `vehicles()` gives them (and the index stores them). */
export const FIELDS: readonly AppraisalField[] = HEADER_PREFIXES.map(([, field]) => field);

/** A vehicle's values in FIELDS order: arrays rather than objects, for the index's tens of thousands. */
export type AppraisalValues = (string | number | null)[];

const REQUIRED: AppraisalField[] = ["codigo", "anio", "tipo", "marca", "modelo", "tasacion"];

/** How a field is read from a row (FIELDS order): the column it is in (none: the workbook lacks it) and whether it is text. */
interface ColumnPlan {
  index: number | undefined;
  text: boolean;
}

/** The plan to read every field, when `cells` is the header row; null when it is not. */
function headerColumns(cells: CellValue[]): ColumnPlan[] | null {
  const columns = new Map<AppraisalField, number>();
  cells.forEach((cell, index) => {
    if (typeof cell !== "string") return;
    const name = normalizeHeader(cell);
    const field = HEADER_PREFIXES.find(([prefix]) => name.startsWith(prefix))?.[1];
    if (field && !columns.has(field)) columns.set(field, index);
  });
  if (!REQUIRED.every((field) => columns.has(field))) return null;
  return FIELDS.map((field) => ({ index: columns.get(field), text: isTextField(field) }));
}

const cleanText = (value: string): string | null => {
  const clean = value.replace(/\s+/g, " ").trim();
  return clean === "" ? null : clean;
};

/** Whether `code` is white space as a regular expression's `\s` means it. */
const isWhiteSpace = (code: number) =>
  (code >= 9 && code <= 13) ||
  code === 32 ||
  code === 160 ||
  code === 5760 ||
  (code >= 8192 && code <= 8202) ||
  code === 8232 ||
  code === 8233 ||
  code === 8239 ||
  code === 8287 ||
  code === 12288 ||
  code === 65279;

/** Whether `cleanText` would give `value` back as it is: most cells, checked without a regular expression. */
function isClean(value: string): boolean {
  let space = true; // at the start, as after a space
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (!isWhiteSpace(code)) space = false;
    else if (space || code !== 32) return false;
    else space = true;
  }
  return !space;
}

/** A cell as text, single-spaced. */
const text = (cell: CellValue | undefined): string | null => {
  if (cell === null || cell === undefined) return null;
  const value = typeof cell === "string" ? cell : String(cell);
  return isClean(value) ? value : cleanText(value);
};

/** Numbers may come as text with thousands dots (`12.345.000`) or a currency sign. */
const number = (cell: CellValue | undefined): number | null => {
  if (typeof cell === "number") return Number.isFinite(cell) ? cell : null;
  if (cell === null || cell === undefined) return null;
  const clean = cleanText(cell)?.replace(/[$\s]/g, "").replace(/\./g, "").replace(",", ".");
  if (!clean) return null;
  const value = Number(clean);
  return Number.isFinite(value) ? value : null;
};

/** A workbook opened for reading: how many rows it has, known before any is read, then its vehicles. */
export interface AppraisalSheet {
  /** The sheet's rows, title block and header included: as its dimension declares them, or counted when it has none. */
  rows: number;
  /** The vehicles in order (FIELDS' values), a batch at a time. Rows before the header and rows without a code are skipped. */
  vehicles(): AsyncGenerator<AppraisalValues[]>;
}

/** Opens a workbook's first sheet and finds how many rows it has, reading none of their cells. */
export async function openAppraisalSheet(workbook: Uint8Array): Promise<AppraisalSheet> {
  const sheet = await openSheet(workbook);
  const rows = sheet.declaredRows ?? (await sheet.countRows());
  return {
    rows,
    async *vehicles() {
      let plan: ColumnPlan[] | null = null;
      let seen = 0;
      for await (const batch of sheet.batches()) {
        seen += batch.length;
        // What the caller was told (and charged for) bounds the work.
        if (seen > rows) throw formatChanged("vehiculos", `the sheet has more rows than the ${rows} its dimension declares`);
        const vehicles: AppraisalValues[] = [];
        for (const { cells } of batch) {
          if (!plan) {
            plan = headerColumns(cells);
            continue;
          }
          const values: AppraisalValues = new Array(plan.length);
          for (let i = 0; i < plan.length; i++) {
            const { index, text: isText } = plan[i] as ColumnPlan;
            const cell = index === undefined ? null : cells[index];
            values[i] = isText ? text(cell) : number(cell);
          }
          if (values[0] !== null) vehicles.push(values);
        }
        if (vehicles.length > 0) yield vehicles;
      }
      if (!plan) throw new Error("the workbook has no header row with Código SII, Año, Tipo, Marca, Modelo and Tasación");
    },
  };
}

/** The vehicles of a workbook, in its order, one at a time (`openAppraisalSheet`). */
export async function* appraisalRows(workbook: Uint8Array): AsyncGenerator<AppraisalRow> {
  for await (const batch of (await openAppraisalSheet(workbook)).vehicles())
    for (const values of batch) yield Object.fromEntries(FIELDS.map((field, i) => [field, values[i] ?? null])) as AppraisalRow;
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
