// Names a printout gives to the codes a DTE carries: the type of a referenced document
// (TpoDocRef), the use of a reference (CodRef) and the kind of transfer of a guía (IndTraslado).
import { DOCUMENT_NAMES } from "./document-names.ts";

/**
 * TpoDocRef besides the DTE types of DOCUMENT_NAMES: the paper documents and the SII's codes for
 * other documents (801–815, 820), as the SII's "Formato Documentos Tributarios Electrónicos" v2.2
 * lists them (p. 41; quoted by cl-sii, cl_sii/dte/constants.py TipoDocumentoEnum, and LibreDTE,
 * resources/data/repository/tipos_documento.php); 821 from the fapp engine's printouts
 * (fapp-sii-pdfmanager/src/main/resources/xml/xslt/*2fo.xsl).
 */
const OTHER_DOCUMENTS: Record<string, string> = {
  30: "Factura",
  32: "Factura de venta bienes y servicios no afectos o exentos de IVA",
  35: "Boleta",
  38: "Boleta exenta",
  40: "Liquidación factura",
  45: "Factura de compra",
  50: "Guía de despacho",
  55: "Nota de débito",
  60: "Nota de crédito",
  103: "Liquidación",
  801: "Orden de Compra",
  802: "Nota de pedido",
  803: "Contrato",
  804: "Resolución",
  805: "Proceso ChileCompra",
  806: "Ficha ChileCompra",
  807: "DUS",
  808: "B/L (Conocimiento de embarque)",
  809: "AWB (Air Will Bill)",
  810: "MIC/DTA",
  811: "Carta de Porte",
  812: "Resolución del SNA donde califica Servicios de Exportación",
  813: "Pasaporte",
  814: "Certificado de Depósito Bolsa Prod. Chile",
  815: "Vale de Prenda Bolsa Prod. Chile",
  820: "Código de Inscripción en el Registro de Acuerdos con Plazo de Pago Excepcional",
  821: "Geo Referencia Predio",
};

/** `FACTURA ELECTRÓNICA` → `Factura Electrónica`; short words stay lower case. */
const titleCase = (name: string) =>
  name
    .toLowerCase()
    .split(" ")
    .map((word, i) => (i > 0 && ["de", "o", "no"].includes(word) ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join(" ");

/**
 * The name a reference prints for its TpoDocRef; a code the SII does not list (an alphabetic one
 * is the taxpayer's own, which the SII does not validate) prints as it is.
 */
export function referenceName(code: string): string {
  const dte = DOCUMENT_NAMES[Number(code)];
  if (dte && /^\d+$/.test(code)) return titleCase(dte);
  return OTHER_DOCUMENTS[code] ?? code;
}

/** CodRef: what the reference does (DTE_v10.xsd, Referencia/CodRef). */
export const REFERENCE_USES: Record<string, string> = {
  1: "Anula documento de referencia",
  2: "Corrige texto del documento de referencia",
  3: "Corrige montos",
};

/**
 * IndTraslado, the kind of transfer of a guía de despacho: 1–7 as DTE_v10.xsd documents them
 * (4 is "Promoción o Donación (RUT Emisor = RUT Receptor)" there), worded as LibreDTE prints them
 * (resources/data/repository/traslados.php), which also names 8 and 9 the schema leaves bare.
 */
export const TRANSFER_KINDS: Record<number, string> = {
  1: "Operación constituye venta",
  2: "Ventas por efectuar",
  3: "Consignaciones",
  4: "Entrega gratuita",
  5: "Traslados internos",
  6: "Otros traslados no venta",
  7: "Guía de devolución",
  8: "Traslado para exportación (no venta)",
  9: "Venta para exportación",
};
