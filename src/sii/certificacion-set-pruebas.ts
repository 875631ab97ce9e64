// The certificacion test set (the SII's set de pruebas) as text, read into cases a client can turn into documents:
// each CASO with its document type, items (quantity, unit price, line discount, exempt or not),
// a global discount, and the reference to an earlier case. Sets without cases (the sales and
// purchase books) keep their instructions as text.

export const DOCUMENT_TYPES: Record<string, number> = {
  "FACTURA ELECTRONICA": 33,
  "FACTURA NO AFECTA O EXENTA ELECTRONICA": 34,
  "FACTURA DE COMPRA ELECTRONICA": 46,
  "GUIA DE DESPACHO ELECTRONICA": 52,
  "NOTA DE DEBITO ELECTRONICA": 56,
  "NOTA DE CREDITO ELECTRONICA": 61,
  "BOLETA ELECTRONICA": 39,
  "BOLETA EXENTA ELECTRONICA": 41,
  "BOLETA NO AFECTA O EXENTA ELECTRONICA": 41,
};

export interface CaseItem {
  nombre: string;
  cantidad: number | null;
  unidad: string | null;
  precio_unitario: number | null;
  descuento_porcentaje: number | null;
  /** The set marks exempt lines with EXENTO in their name. */
  exento: boolean;
}

export interface TestCase {
  /** `4943173-1` */
  caso: string;
  documento: string;
  /** The SII document type code, or null when the name is not one this gateway knows. */
  tipo: number | null;
  items: CaseItem[];
  descuento_global_porcentaje: number | null;
  referencia: { documento: string; tipo: number | null; caso: string } | null;
  razon_referencia: string | null;
}

export interface TestSet {
  nombre: string;
  numero_atencion: string;
  casos: TestCase[];
  /** The set's text as the SII wrote it (instructions for sets without cases). */
  texto: string;
}

const normalize = (text: string) =>
  text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .toUpperCase();

const typeOf = (name: string) => DOCUMENT_TYPES[normalize(name)] ?? null;
const number = (text: string | undefined) => (text === undefined || text === "" ? null : Number(text.replace(/\./g, "").replace(",", ".")));

/** Columns of an item table, from its header line (ITEM, CANTIDAD, UNIDAD MEDIDA, PRECIO/VALOR UNITARIO, DESCUENTO ITEM). */
function columnsOf(header: string): string[] {
  return header
    .split(/\t+/)
    .map((c) => normalize(c))
    .filter(Boolean);
}

function parseItem(line: string, columns: string[]): CaseItem {
  const cells = line.split(/\t+/).map((c) => c.trim());
  const name = cells[0] ?? "";
  const value = (column: string) => {
    const index = columns.indexOf(column);
    return index > 0 ? cells[index] : undefined;
  };
  const price = value("PRECIO UNITARIO") ?? value("VALOR UNITARIO");
  const discount = value("DESCUENTO ITEM");
  return {
    nombre: name,
    cantidad: number(value("CANTIDAD")),
    unidad: value("UNIDAD MEDIDA") ?? null,
    precio_unitario: number(price),
    descuento_porcentaje: discount ? number(discount.replace("%", "")) : null,
    exento: /\bEXENTO\b/i.test(name),
  };
}

function parseCase(caso: string, body: string): TestCase {
  const lines = body.split(/\r?\n/);
  const field = (label: string) => {
    const line = lines.find((l) => normalize(l.split(/\t+/)[0] ?? "") === label);
    return line ? line.split(/\t+/).slice(1).join(" ").trim() : null;
  };
  const documento = field("DOCUMENTO") ?? "";
  const referenced = field("REFERENCIA");
  const refMatch = referenced ? /^(.*?)\s+CORRESPONDIENTE A CASO\s+([\d-]+)/i.exec(referenced) : null;
  const items: CaseItem[] = [];
  let columns: string[] | null = null;
  for (const line of lines) {
    if (/^ITEM\b/i.test(line.trim()) && line.includes("\t")) {
      columns = columnsOf(line);
      continue;
    }
    if (/^[-=]{3,}$/.test(line.trim())) {
      columns = null; // a separator ends the table
      continue;
    }
    if (!columns) continue;
    if (!line.trim() || /^DESCUENTO GLOBAL/i.test(line.trim())) {
      if (!line.trim() && items.length) columns = null;
      continue;
    }
    items.push(parseItem(line, columns));
  }
  const global = lines.map((l) => /DESCUENTO GLOBAL[^\d]*(\d+(?:,\d+)?)\s*%/i.exec(l)?.[1]).find(Boolean);
  return {
    caso,
    documento: normalize(documento),
    tipo: typeOf(documento),
    items,
    descuento_global_porcentaje: number(global),
    referencia: refMatch ? { documento: normalize(refMatch[1] ?? ""), tipo: typeOf(refMatch[1] ?? ""), caso: refMatch[2] ?? "" } : null,
    razon_referencia: field("RAZON REFERENCIA"),
  };
}

/**
 * The boleta set from the SII's boleta certification application, as devlas-cl/dte-sii
 * cert/BoletaCert.js reads it (parseSetPruebas): cases `CASO-n`, an item header naming Item,
 * Cantidad and Precio, items split by tabs or runs of spaces, `OBSERVACION` lines (a unit of
 * measure "en Kg." goes to the first item), every case a boleta (type 39, exempt lines by name).
 * Documents reference their case as `CASO-n`.
 */
function parseBoletaSet(text: string, head: RegExpMatchArray | undefined): TestSet {
  const numero = head?.[2] ?? "";
  const cases = [...text.matchAll(/^\s*CASO-?(\d+)\s*$/gim)];
  const casos = cases.map((c, i): TestCase => {
    const body = text
      .slice((c.index ?? 0) + c[0].length, cases[i + 1]?.index ?? text.length)
      .split(/\r?\n/)
      .map((l) => l.trim());
    let columns: string[] | null = null;
    const items: CaseItem[] = [];
    for (const line of body) {
      if (/\bitem\b/i.test(line) && /cantidad/i.test(line) && /precio/i.test(line)) {
        columns = line.split(/\t+|\s{2,}/).map((c) => normalize(c));
        continue;
      }
      if (!columns || !line || /^=+$/.test(line) || /^OBSERVACION/i.test(line)) continue;
      const cells = line.split(/\t+|\s{2,}/);
      const at = (test: (column: string) => boolean) => {
        const index = columns?.findIndex(test) ?? -1;
        return index > 0 ? cells[index] : undefined;
      };
      items.push({
        nombre: cells[0] ?? "",
        cantidad: number(at((col) => col === "CANTIDAD")),
        unidad: at((col) => col.startsWith("UNIDAD")) ?? null,
        precio_unitario: number(at((col) => col.startsWith("PRECIO") || col.startsWith("VALOR"))),
        descuento_porcentaje: null,
        exento: /\bEXENTO\b/i.test(cells[0] ?? ""),
      });
    }
    const unit = body.map((l) => /^OBSERVACION.*unidad de medida en\s+(\w+)/i.exec(l)?.[1]).find(Boolean);
    if (unit && items[0] && !items[0].unidad) items[0].unidad = unit;
    return {
      caso: c[1] ?? "",
      documento: "BOLETA ELECTRONICA",
      tipo: 39,
      items,
      descuento_global_porcentaje: null,
      referencia: null,
      razon_referencia: null,
    };
  });
  const nombre = head ? normalize(`SET ${head[1] ?? ""}`) : "SET DE BOLETA ELECTRONICA";
  return { nombre, numero_atencion: numero, casos, texto: text.trim() };
}

/**
 * "NUMERO DE ATENCION" however its accents arrive. devlas-cl/dte-sii cert/SetParser.js matches
 * `NUMERO DE ATENCI` followed by anything but a digit or a colon, because the set file has come
 * with the Ó broken (the replacement character, or `ï¿½` after a double decoding), as UTF-8 `Ó`
 * or plain `O`; the same holds here for the Ú of NÚMERO (inferred: devlas writes it plain).
 */
const ATTENTION = String.raw`N[^\s\d:]{1,8}?MERO\s+DE\s+ATENCI[^\d:\n]*`;

/** Whether a text is a set file: it names an attention number (the line each set starts with). */
export const TEST_SET_MARK = new RegExp(ATTENTION, "i");

/**
 * A set's first line as devlas-cl/dte-sii cert/SetParser.js reads it (on the trimmed line): `SET`,
 * the set's name, a dash or a colon, the attention-number label, an optional colon, the number.
 */
const SET_HEAD = new RegExp(String.raw`^[ \t]*SET[ \t]+([^\n]*?)[ \t]*[-:][ \t]*${ATTENTION}[: \t]*(\d+)`, "gim");

/** Every SET of the text with its cases; a boleta set (cases `CASO-n`) as one set. */
export function parseTestSets(text: string): TestSet[] {
  const heads = [...text.matchAll(SET_HEAD)];
  if (/^\s*CASO-\d+\s*$/im.test(text) && !/^\s*CASO\s+\d+-\d+\s*$/im.test(text)) return [parseBoletaSet(text, heads[0])];
  return heads.map((head, i) => {
    const start = (head.index ?? 0) + head[0].length;
    const section = text.slice(start, heads[i + 1]?.index ?? text.length);
    const cases = [...section.matchAll(/^[ \t]*CASO[ \t]+(\d+-\d+)[ \t]*\r?$/gim)];
    return {
      nombre: normalize(`SET ${head[1] ?? ""}`),
      numero_atencion: head[2] ?? "",
      casos: cases.map((c, j) => parseCase(c[1] ?? "", section.slice((c.index ?? 0) + c[0].length, cases[j + 1]?.index ?? section.length))),
      texto: section.replace(/^-+$/gm, "").trim(),
    };
  });
}
