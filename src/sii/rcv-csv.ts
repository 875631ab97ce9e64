// The register's CSV (the export's lines and the asynchronous file) read by its header's labels:
// columns are found by name, accent-, case- and whitespace-tolerant, with the names each side and
// state uses (cordada/lib-cl-sii-python `src/cl_sii/rcv/parse_csv.py` and the SII's files under
// test/fixtures/sii/rcv). A column the reader needs that the header lacks, a document line
// shorter than the header, or a document twice is SII_FORMAT_CHANGED, never a document with zeros.
// Not checked: that Monto Total is the sum of its parts. It holds in most of the SII's files, but
// not in all the real ones (RCV-venta-validation-errors.csv, RCV-venta-extra-empty-impuestos-rows.csv:
// totals past exento + neto + IVA + other taxes), so it is not a promise of the data.
import { ApiError } from "../lib/api-error.ts";
import { formatChanged } from "./format-changed.ts";
import { rcvService } from "./rcv-facade.ts";
import { CREDIT_NOTES, code, type DetalleRow, DocumentKeys, isoDate, n } from "./rcv-rows.ts";

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

/** A header label as compared: no accents, lower case, single spaces, no trailing dot. */
export function label(text: string): string {
  return cell(text)
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/\.$/, "")
    .trim();
}

/**
 * The columns the reader uses and the labels each goes by: purchases and sales name the
 * counterpart, the VAT and the other-tax columns differently (the SII's files under
 * test/fixtures/sii/rcv; docs/sii-services.md §7.5).
 */
const COLUMNS = {
  nro: ["Nro"],
  tipo: ["Tipo Doc"],
  rut: ["RUT Proveedor", "Rut cliente"],
  razon: ["Razon Social"],
  folio: ["Folio"],
  fecha: ["Fecha Docto"],
  recepcion: ["Fecha Recepcion"],
  exento: ["Monto Exento"],
  neto: ["Monto Neto"],
  // Purchases: the recoverable VAT only (the rest is in PURCHASE_COLUMNS).
  iva: ["Monto IVA Recuperable", "Monto IVA"],
  total: ["Monto Total"],
  codigo: ["Codigo Otro Impuesto", "Codigo Otro Imp"],
  valor: ["Valor Otro Impuesto", "Valor Otro Imp"],
  tasa: ["Tasa Otro Impuesto", "Tasa Otro Imp"],
} as const;
type Column = keyof typeof COLUMNS;

/**
 * Columns only the purchases' files have: the VAT that gives no credit and its code. A NO_INCLUIR
 * purchase carries its VAT there alone, `Monto IVA Recuperable` left empty (cordada/lib-cl-sii-python
 * `src/tests/test_data/sii-rcv/RCV-compra-no_incluir-rz_leading_trailing_whitespace.csv`: 16663, code 9),
 * so a purchase file without them is refused rather than answered with that VAT as 0.
 */
const PURCHASE_COLUMNS = {
  ivaNoRec: ["Monto Iva No Recuperable"],
  codigoNoRec: ["Codigo IVA No Rec"],
} as const;
type PurchaseColumn = keyof typeof PURCHASE_COLUMNS;
export type Side = "COMPRA" | "VENTA";
export type CsvColumns = Record<Column, number> & Partial<Record<PurchaseColumn, number>>;

/** Where a column is in these labels (undefined: absent); SII_FORMAT_CHANGED for one given twice. */
function find(labels: string[], names: readonly string[], header: string, service: string): number | undefined {
  const found = labels.flatMap((l, i) => (names.some((name) => label(name) === l) ? [i] : []));
  if (found.length > 1) throw formatChanged(service, `the header has the column "${names[0]}" twice`, header.slice(0, 300));
  return found[0];
}

/**
 * Where each column is in this header; SII_FORMAT_CHANGED for one missing or given twice. `operacion`:
 * the register the file was asked for; without it, the counterpart's label tells (`RUT Proveedor`: purchases).
 */
export function csvColumns(header: string, service: string, operacion?: Side): CsvColumns {
  const labels = header.split(";").map(label);
  const at = {} as CsvColumns;
  for (const [column, names] of Object.entries(COLUMNS) as [Column, readonly string[]][]) {
    const found = find(labels, names, header, service);
    if (found === undefined) throw formatChanged(service, `the header has no column "${names.join('" or "')}"`, header.slice(0, 300));
    at[column] = found;
  }
  const side: Side = labels[at.rut] === label(COLUMNS.rut[0]) ? "COMPRA" : "VENTA";
  if (operacion && operacion !== side) {
    throw formatChanged(
      service,
      `a ${operacion === "COMPRA" ? "purchases" : "sales"} file names the counterpart "${labels[at.rut]}"`,
      header.slice(0, 300),
    );
  }
  for (const [column, names] of Object.entries(PURCHASE_COLUMNS) as [PurchaseColumn, readonly string[]][]) {
    const found = find(labels, names, header, service);
    if (found === undefined && side === "COMPRA") {
      throw formatChanged(service, `the purchases file has no column "${names[0]}"`, header.slice(0, 300));
    }
    if (found !== undefined) at[column] = found;
  }
  return at;
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
  private readonly at: CsvColumns;
  private readonly width: number;
  private readonly keys: DocumentKeys;
  private pending: CsvDocument | null = null;
  /** Documents completed so far (continuation lines not counted). */
  count = 0;

  /**
   * `estado`: the state the file was asked for (it has no column of its own); `service`: whose file it is;
   * `operacion`: the register asked for (without it, the header's counterpart tells).
   */
  private readonly estado: string;
  private readonly service: string;

  constructor(header: string, estado: string, service = rcvService("obtenerArchivoBLOB"), operacion?: Side) {
    this.estado = estado;
    this.service = service;
    this.at = csvColumns(header, service, operacion);
    this.width = header.split(";").length;
    this.keys = new DocumentKeys(service);
  }

  /** The cell of a column; "" for a column this side's file does not have. */
  private get(row: string[], column: Column | PurchaseColumn): string {
    const at = this.at[column];
    return at === undefined ? "" : cell(row[at]);
  }

  /** The line's "other tax" (purchases: `Codigo Otro Impuesto`, sales: `Codigo Otro Imp.`), if it has one. */
  private tax(row: string[]): OtroImpuesto | null {
    const codigo = this.get(row, "codigo");
    if (!codigo) return null;
    const tasa = this.get(row, "tasa");
    return { codigo: n(codigo), valor: n(this.get(row, "valor")), tasa: tasa === "" ? null : n(tasa) };
  }

  push(line: string): CsvDocument | null {
    const row = line.split(";");
    // Rows end with a `;` the header lacks, and continuation lines carry more empty cells: a row
    // shorter than its header has lost columns (crilam/mcp-sii `src/scrapers/rcvAsync.ts` refuses those).
    if (row.length < this.width) {
      throw formatChanged(this.service, `a line has ${row.length} cells but the header ${this.width}`, line.slice(0, 300));
    }
    const tax = this.tax(row);
    if (this.get(row, "nro") === "") {
      if (!this.pending) {
        throw new ApiError(
          502,
          "SII_GATEWAY_ERROR",
          "The SII's file starts with a continuation line (empty Nro) that belongs to no document",
          { details: { service: this.service, reason: "continuation line without a document" } },
        );
      }
      if (tax) this.pending.otros_impuestos.push(tax);
      return null;
    }
    const done = this.take();
    const tipo = n(this.get(row, "tipo"));
    this.pending = this.keys.check({
      tipo_documento: tipo,
      folio: n(this.get(row, "folio")),
      rut: this.get(row, "rut").toUpperCase(),
      razon_social: this.get(row, "razon"),
      fecha: isoDate(this.get(row, "fecha")) ?? this.get(row, "fecha"),
      fecha_recepcion: isoDate(this.get(row, "recepcion")),
      monto_exento: n(this.get(row, "exento")),
      monto_neto: n(this.get(row, "neto")),
      monto_iva: n(this.get(row, "iva")),
      monto_iva_no_recuperable: n(this.get(row, "ivaNoRec")),
      codigo_iva_no_recuperable: code(n(this.get(row, "codigoNoRec"))),
      monto_total: n(this.get(row, "total")),
      estado: this.estado,
      nota_credito: CREDIT_NOTES.has(tipo),
      otros_impuestos: tax ? [tax] : [],
    });
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
export async function* csvDocuments(
  lines: Iterable<string> | AsyncIterable<string>,
  estado: string,
  service?: string,
  operacion?: Side,
): AsyncGenerator<CsvDocument> {
  let reader: CsvDocuments | undefined;
  for await (const line of lines) {
    if (!reader) reader = new CsvDocuments(line, estado, service, operacion);
    else {
      const done = reader.push(line);
      if (done) yield done;
    }
  }
  const last = reader?.end();
  if (last) yield last;
}
