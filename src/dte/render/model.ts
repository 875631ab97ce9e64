// What a printed representation shows of a signed DTE, read from its XML: the issuer, the
// receiver, the lines with their discounts, every amount of Totales, the global discounts, the
// other currency, the transfer, the references, and the TED bytes for the PDF417 (the flattened
// `<TED>` exactly as the file has it, in ISO-8859-1: docs/dte-engine.md §2.4, §6.1).
import { encodeLatin1 } from "../../lib/latin1.ts";
import { childElements, childText, findChild, localName, onlyChild, sourceOf, type XmlDocument, type XmlElement } from "../xml/parse.ts";
import { DOCUMENT_NAMES } from "./document-names.ts";
import { REFERENCE_USES, referenceName, TRANSFER_KINDS } from "./labels.ts";
import { money, pesos } from "./money.ts";

export { DOCUMENT_NAMES } from "./document-names.ts";
export { pesos } from "./money.ts";

export interface Party {
  rut: string;
  nombre: string;
  giro: string;
  direccion: string;
  comuna: string;
}

/** The issuer's optional fields print when the XML has them (empty otherwise). */
export interface Issuer extends Party {
  telefonos: string[];
  correo: string;
  actecos: string[];
  sucursal: string;
  cdg_sii_sucur: string;
  vendedor: string;
}

export interface Receiver extends Party {
  contacto: string;
  correo: string;
  ciudad: string;
  /** DirPostal, CmnaPostal and CiudadPostal joined. */
  direccion_postal: string;
  /** A foreign receiver's identification and nationality (Aduana country code). */
  extranjero: { num_id: string; nacionalidad: string } | null;
}

export interface Line {
  nombre: string;
  descripcion: string;
  cantidad: number | null;
  unidad: string;
  precio: number | null;
  descuento_pct: number | null;
  descuento: number | null;
  recargo_pct: number | null;
  recargo: number | null;
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

/** A global discount (D) or surcharge (R), in percent or in the document's currency. */
export interface GlobalAdjustment {
  tipo: "D" | "R";
  unidad: "%" | "$";
  valor: number;
  glosa: string;
  /** IndExeDR: 1 on exempt amounts, 2 on amounts not invoiced; empty on the taxed ones. */
  exento: string;
}

export interface Totals {
  /** TpoMoneda (exports: the Aduana's currency name); null for pesos. */
  moneda: string | null;
  neto: number | null;
  exento: number | null;
  iva: number | null;
  tasa_iva: number | null;
  iva_propio: number | null;
  iva_terceros: number | null;
  impuestos: { tipo: number; tasa: number | null; monto: number }[];
  iva_no_retenido: number | null;
  credito_constructoras: number | null;
  garantia_envases: number | null;
  /** The sum of a 43's `Totales.Comisiones` (neto + exento + IVA), null on other types. */
  comisiones: number | null;
  total: number;
  no_facturable: number | null;
  periodo: number | null;
  saldo_anterior: number | null;
  a_pagar: number | null;
}

export interface OtherCurrency {
  moneda: string;
  tipo_cambio: number | null;
  neto: number | null;
  exento: number | null;
  iva: number | null;
  total: number | null;
}

export interface Transport {
  patente: string;
  rut_transportista: string;
  rut_chofer: string;
  nombre_chofer: string;
  direccion: string;
  comuna: string;
  ciudad: string;
  /** An export's Aduana block: the receiver's and the destination's country (Aduana codes). */
  pais_receptor: string;
  pais_destino: string;
}

export interface Reference {
  /** TpoDocRef as the XML has it, and the name it prints. */
  tipo: string;
  nombre: string;
  folio: string;
  fecha: string;
  /** CodRef's meaning, empty when the reference has none. */
  uso: string;
  razon: string;
}

export interface PrintedDocument {
  tipo: number;
  nombre_tipo: string;
  folio: number;
  fecha: string;
  emisor: Issuer;
  receptor: Receiver | null;
  /** IndTraslado of a guía, with its name. */
  traslado: { codigo: number; nombre: string } | null;
  transporte: Transport | null;
  lineas: Line[];
  descuentos_globales: GlobalAdjustment[];
  totales: Totals;
  otra_moneda: OtherCurrency | null;
  comisiones: Commission[];
  referencias: Reference[];
  /** The flattened TED in ISO-8859-1: the PDF417's exact payload; null when the document has none. */
  ted: Uint8Array | null;
}

const num = (value: string) => (value === "" ? null : Number(value));
const children = (element: XmlElement | undefined, name: string) =>
  element ? childElements(element).filter((c) => localName(c.name) === name) : [];
const joined = (...parts: string[]) => parts.filter(Boolean).join(", ");

/**
 * The printed content of one DTE: `documento` is its Documento (or Liquidacion / Exportaciones) in
 * the parsed `doc`, whose source gives the TED's bytes exactly as the file has them.
 */
export function printedDocument(doc: Pick<XmlDocument, "source">, documento: XmlElement): PrintedDocument {
  const encabezado = findChild(documento, "Encabezado");
  const idDoc = findChild(encabezado, "IdDoc");
  const tipo = Number(childText(idDoc, "TipoDTE"));
  const receptor = findChild(encabezado, "Receptor");
  const traslado = num(childText(idDoc, "IndTraslado"));
  // The document's one TED node (none drawn when it has none, or several: no stamp to vouch for).
  const tedNode = onlyChild(documento, "TED");
  const ted = typeof tedNode === "string" ? undefined : sourceOf(doc, tedNode);
  return {
    tipo,
    nombre_tipo: DOCUMENT_NAMES[tipo] ?? `DOCUMENTO TRIBUTARIO ELECTRÓNICO ${tipo}`,
    folio: Number(childText(idDoc, "Folio")),
    fecha: childText(idDoc, "FchEmis"),
    emisor: issuer(findChild(encabezado, "Emisor")),
    receptor: receptor ? receiver(receptor) : null,
    traslado: traslado === null ? null : { codigo: traslado, nombre: TRANSFER_KINDS[traslado] ?? `Traslado ${traslado}` },
    transporte: transport(findChild(encabezado, "Transporte")),
    lineas: children(documento, "Detalle").map((d) => ({
      nombre: childText(d, "NmbItem"),
      descripcion: childText(d, "DscItem"),
      cantidad: num(childText(d, "QtyItem")),
      unidad: childText(d, "UnmdItem"),
      precio: num(childText(d, "PrcItem")),
      descuento_pct: num(childText(d, "DescuentoPct")),
      descuento: num(childText(d, "DescuentoMonto")),
      recargo_pct: num(childText(d, "RecargoPct")),
      recargo: num(childText(d, "RecargoMonto")),
      monto: Number(childText(d, "MontoItem") || 0),
      exento: childText(d, "IndExe") !== "",
    })),
    descuentos_globales: children(documento, "DscRcgGlobal").map((g) => ({
      tipo: childText(g, "TpoMov") === "R" ? "R" : "D",
      unidad: childText(g, "TpoValor") === "%" ? "%" : "$",
      valor: Number(childText(g, "ValorDR") || 0),
      glosa: childText(g, "GlosaDR"),
      exento: childText(g, "IndExeDR"),
    })),
    totales: totals(findChild(encabezado, "Totales")),
    otra_moneda: otherCurrency(findChild(encabezado, "OtraMoneda")),
    comisiones: children(documento, "Comisiones").map((c) => ({
      tipo: childText(c, "TipoMovim"),
      glosa: childText(c, "Glosa"),
      tasa: num(childText(c, "TasaComision")),
      neto: Number(childText(c, "ValComNeto") || 0),
      exento: Number(childText(c, "ValComExe") || 0),
      iva: num(childText(c, "ValComIVA")),
    })),
    referencias: children(documento, "Referencia").map((r) => {
      const tipoRef = childText(r, "TpoDocRef");
      return {
        tipo: tipoRef,
        nombre: tipoRef ? referenceName(tipoRef) : "",
        folio: childText(r, "FolioRef"),
        fecha: childText(r, "FchRef"),
        uso: REFERENCE_USES[childText(r, "CodRef")] ?? "",
        razon: childText(r, "RazonRef"),
      };
    }),
    ted: ted ? encodeLatin1(flattenTed(ted)) : null,
  };
}

function issuer(emisor: XmlElement | undefined): Issuer {
  return {
    rut: childText(emisor, "RUTEmisor"),
    nombre: childText(emisor, "RznSoc") || childText(emisor, "RznSocEmisor"),
    giro: childText(emisor, "GiroEmis") || childText(emisor, "GiroEmisor"),
    direccion: childText(emisor, "DirOrigen"),
    comuna: childText(emisor, "CmnaOrigen"),
    telefonos: children(emisor, "Telefono").map((t) => childText(t)),
    correo: childText(emisor, "CorreoEmisor"),
    actecos: children(emisor, "Acteco").map((a) => childText(a)),
    sucursal: childText(emisor, "Sucursal"),
    cdg_sii_sucur: childText(emisor, "CdgSIISucur"),
    vendedor: childText(emisor, "CdgVendedor"),
  };
}

function receiver(receptor: XmlElement): Receiver {
  const extranjero = findChild(receptor, "Extranjero");
  return {
    rut: childText(receptor, "RUTRecep"),
    nombre: childText(receptor, "RznSocRecep"),
    giro: childText(receptor, "GiroRecep"),
    direccion: childText(receptor, "DirRecep"),
    comuna: childText(receptor, "CmnaRecep"),
    contacto: childText(receptor, "Contacto"),
    correo: childText(receptor, "CorreoRecep"),
    ciudad: childText(receptor, "CiudadRecep"),
    direccion_postal: joined(childText(receptor, "DirPostal"), childText(receptor, "CmnaPostal"), childText(receptor, "CiudadPostal")),
    extranjero: extranjero ? { num_id: childText(extranjero, "NumId"), nacionalidad: childText(extranjero, "Nacionalidad") } : null,
  };
}

function totals(totales: XmlElement | undefined): Totals {
  const amount = (name: string) => num(childText(totales, name));
  const comisiones = findChild(totales, "Comisiones");
  return {
    moneda: childText(totales, "TpoMoneda") || null,
    neto: amount("MntNeto"),
    exento: amount("MntExe"),
    iva: amount("IVA"),
    tasa_iva: amount("TasaIVA"),
    iva_propio: amount("IVAProp"),
    iva_terceros: amount("IVATerc"),
    impuestos: children(totales, "ImptoReten").map((i) => ({
      tipo: Number(childText(i, "TipoImp")),
      tasa: num(childText(i, "TasaImp")),
      monto: Number(childText(i, "MontoImp") || 0),
    })),
    iva_no_retenido: amount("IVANoRet"),
    credito_constructoras: amount("CredEC"),
    garantia_envases: amount("GrntDep"),
    comisiones: comisiones
      ? ["ValComNeto", "ValComExe", "ValComIVA"].reduce((sum, key) => sum + Number(childText(comisiones, key) || 0), 0)
      : null,
    total: Number(childText(totales, "MntTotal") || 0),
    no_facturable: amount("MontoNF"),
    // Boletas call it TotalPeriodo.
    periodo: amount("MontoPeriodo") ?? amount("TotalPeriodo"),
    saldo_anterior: amount("SaldoAnterior"),
    a_pagar: amount("VlrPagar"),
  };
}

function otherCurrency(otra: XmlElement | undefined): OtherCurrency | null {
  if (!otra) return null;
  const amount = (name: string) => num(childText(otra, name));
  return {
    moneda: childText(otra, "TpoMoneda"),
    tipo_cambio: amount("TpoCambio"),
    neto: amount("MntNetoOtrMnda"),
    exento: amount("MntExeOtrMnda"),
    iva: amount("IVAOtrMnda"),
    total: amount("MntTotOtrMnda"),
  };
}

/** The transfer of goods, and an export's countries from its Aduana block; null when there is neither. */
function transport(transporte: XmlElement | undefined): Transport | null {
  if (!transporte) return null;
  const t: Transport = {
    patente: childText(transporte, "Patente"),
    rut_transportista: childText(transporte, "RUTTrans"),
    rut_chofer: childText(transporte, "Chofer", "RUTChofer"),
    nombre_chofer: childText(transporte, "Chofer", "NombreChofer"),
    direccion: childText(transporte, "DirDest"),
    comuna: childText(transporte, "CmnaDest"),
    ciudad: childText(transporte, "CiudadDest"),
    pais_receptor: childText(transporte, "Aduana", "CodPaisRecep"),
    pais_destino: childText(transporte, "Aduana", "CodPaisDestin"),
  };
  return Object.values(t).some(Boolean) ? t : null;
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
  const rate = c.tasa === null ? "" : ` ${pesos(c.tasa)}%`;
  const iva = c.iva ? ` (IVA ${money(c.iva)})` : "";
  return { text: `${kind}${rate}: ${c.glosa}${iva}`, amount: c.neto + c.exento + (c.iva ?? 0) };
}
