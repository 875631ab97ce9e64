// What a printed representation shows of a signed DTE, read from its XML: the issuer, the
// receiver, the lines, the totals, the references, and the TED bytes for the PDF417 (the
// flattened `<TED>` exactly as the file has it, in ISO-8859-1: docs/dte-engine.md §2.4).
import { encodeLatin1 } from "../../lib/latin1.ts";
import { childElements, childText, findChild, localName, onlyChild, sourceOf, type XmlDocument, type XmlElement } from "../xml/parse.ts";

export const DOCUMENT_NAMES: Record<number, string> = {
  33: "FACTURA ELECTRÓNICA",
  34: "FACTURA NO AFECTA O EXENTA ELECTRÓNICA",
  39: "BOLETA ELECTRÓNICA",
  41: "BOLETA NO AFECTA O EXENTA ELECTRÓNICA",
  43: "LIQUIDACIÓN FACTURA ELECTRÓNICA",
  46: "FACTURA DE COMPRA ELECTRÓNICA",
  52: "GUÍA DE DESPACHO ELECTRÓNICA",
  56: "NOTA DE DÉBITO ELECTRÓNICA",
  61: "NOTA DE CRÉDITO ELECTRÓNICA",
  110: "FACTURA DE EXPORTACIÓN ELECTRÓNICA",
  111: "NOTA DE DÉBITO DE EXPORTACIÓN ELECTRÓNICA",
  112: "NOTA DE CRÉDITO DE EXPORTACIÓN ELECTRÓNICA",
};

export interface Party {
  rut: string;
  nombre: string;
  giro: string;
  direccion: string;
  comuna: string;
}

export interface Line {
  nombre: string;
  descripcion: string;
  cantidad: number | null;
  unidad: string;
  precio: number | null;
  descuento: number | null;
  monto: number;
  exento: boolean;
}

/** A liquidación-factura's commission or other charge (43: `Comisiones`), taken off its total. */
export interface Commission {
  /** C commission, O other charge. */
  tipo: string;
  glosa: string;
  tasa: number | null;
  neto: number;
  exento: number;
  iva: number | null;
}

export interface PrintedDocument {
  tipo: number;
  nombre_tipo: string;
  folio: number;
  fecha: string;
  emisor: Party;
  receptor: Party | null;
  lineas: Line[];
  /** `comisiones`: the sum of a 43's `Totales.Comisiones` (neto + exento + IVA), null on other types. */
  totales: {
    neto: number | null;
    exento: number | null;
    iva: number | null;
    tasa_iva: number | null;
    comisiones: number | null;
    total: number;
  };
  comisiones: Commission[];
  referencias: { tipo: string; folio: string; fecha: string; razon: string }[];
  /** The flattened TED in ISO-8859-1: the PDF417's exact payload; null when the document has none. */
  ted: Uint8Array | null;
}

const num = (value: string) => (value === "" ? null : Number(value));
const children = (element: XmlElement | undefined, name: string) =>
  element ? childElements(element).filter((c) => localName(c.name) === name) : [];

/**
 * The printed content of one DTE: `documento` is its Documento (or Liquidacion / Exportaciones) in
 * the parsed `doc`, whose source gives the TED's bytes exactly as the file has them.
 */
export function printedDocument(doc: Pick<XmlDocument, "source">, documento: XmlElement): PrintedDocument {
  const encabezado = findChild(documento, "Encabezado");
  const tipo = Number(childText(encabezado, "IdDoc", "TipoDTE"));
  const emisor = findChild(encabezado, "Emisor");
  const receptor = findChild(encabezado, "Receptor");
  const totales = findChild(encabezado, "Totales");
  const comisionesTotal = findChild(totales, "Comisiones");
  // The document's one TED node (none drawn when it has none, or several: no stamp to vouch for).
  const tedNode = onlyChild(documento, "TED");
  const ted = typeof tedNode === "string" ? undefined : sourceOf(doc, tedNode);
  return {
    tipo,
    nombre_tipo: DOCUMENT_NAMES[tipo] ?? `DOCUMENTO TRIBUTARIO ELECTRÓNICO ${tipo}`,
    folio: Number(childText(encabezado, "IdDoc", "Folio")),
    fecha: childText(encabezado, "IdDoc", "FchEmis"),
    emisor: {
      rut: childText(emisor, "RUTEmisor"),
      nombre: childText(emisor, "RznSoc") || childText(emisor, "RznSocEmisor"),
      giro: childText(emisor, "GiroEmis") || childText(emisor, "GiroEmisor"),
      direccion: childText(emisor, "DirOrigen"),
      comuna: childText(emisor, "CmnaOrigen"),
    },
    receptor: receptor
      ? {
          rut: childText(receptor, "RUTRecep"),
          nombre: childText(receptor, "RznSocRecep"),
          giro: childText(receptor, "GiroRecep"),
          direccion: childText(receptor, "DirRecep"),
          comuna: childText(receptor, "CmnaRecep"),
        }
      : null,
    lineas: children(documento, "Detalle").map((d) => ({
      nombre: childText(d, "NmbItem"),
      descripcion: childText(d, "DscItem"),
      cantidad: num(childText(d, "QtyItem")),
      unidad: childText(d, "UnmdItem"),
      precio: num(childText(d, "PrcItem")),
      descuento: num(childText(d, "DescuentoMonto")),
      monto: Number(childText(d, "MontoItem") || 0),
      exento: childText(d, "IndExe") !== "",
    })),
    totales: {
      neto: num(childText(totales, "MntNeto")),
      exento: num(childText(totales, "MntExe")),
      iva: num(childText(totales, "IVA")),
      tasa_iva: num(childText(totales, "TasaIVA")),
      comisiones: comisionesTotal
        ? ["ValComNeto", "ValComExe", "ValComIVA"].reduce((sum, key) => sum + Number(childText(comisionesTotal, key) || 0), 0)
        : null,
      total: Number(childText(totales, "MntTotal") || 0),
    },
    comisiones: children(documento, "Comisiones").map((c) => ({
      tipo: childText(c, "TipoMovim"),
      glosa: childText(c, "Glosa"),
      tasa: num(childText(c, "TasaComision")),
      neto: Number(childText(c, "ValComNeto") || 0),
      exento: Number(childText(c, "ValComExe") || 0),
      iva: num(childText(c, "ValComIVA")),
    })),
    referencias: children(documento, "Referencia").map((r) => ({
      tipo: childText(r, "TpoDocRef"),
      folio: childText(r, "FolioRef"),
      fecha: childText(r, "FchRef"),
      razon: childText(r, "RazonRef"),
    })),
    ted: ted ? encodeLatin1(flattenTed(ted)) : null,
  };
}

/**
 * The TED as the barcode carries it: no whitespace between tags, and none inside the FRMT's
 * base64 (a line break there is layout, not signature). The DD stays exactly as signed.
 */
export function flattenTed(ted: string): string {
  return ted
    .replace(/\r\n?/g, "\n")
    .replace(/>\s+</g, "><")
    .replace(
      /(<FRMT[^>]*>)([^<]*)(<\/FRMT>)/,
      (_, open: string, value: string, close: string) => `${open}${value.replace(/\s+/g, "")}${close}`,
    );
}

/** How a commission line is printed: its text and the amount taken off (neto + exento + IVA). */
export function commissionLine(c: Commission): { text: string; amount: number } {
  const kind = c.tipo === "O" ? "Otro cargo" : "Comisión";
  const rate = c.tasa === null ? "" : ` ${c.tasa}%`;
  const iva = c.iva ? ` (IVA $ ${pesos(c.iva)})` : "";
  return { text: `${kind}${rate}: ${c.glosa}${iva}`, amount: c.neto + c.exento + (c.iva ?? 0) };
}

/** `1234567` → `1.234.567` (Chilean thousands separator). */
export function pesos(value: number): string {
  const sign = value < 0 ? "-" : "";
  const [whole = "0", decimals] = Math.abs(value).toString().split(".");
  return `${sign}${thousands(whole)}${decimals ? `,${decimals}` : ""}`;
}

/** `1234567` → `1.234.567`; what is not all digits (an exponent) is left as it is. */
function thousands(digits: string): string {
  if (digits.length <= 3 || !/^\d+$/.test(digits)) return digits;
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `.${digits.slice(i, i + 3)}`;
  return out;
}
