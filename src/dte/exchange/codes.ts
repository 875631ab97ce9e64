// The codes and fixed texts of the answers a DTE's receiver sends its issuer. The meanings are the
// `xs:documentation` the SII gives each enumeration in RespuestaEnvioDTE_v10.xsd (10-03-05), the
// schema of its "Formato Mensaje de Respuesta a Documentos Tributarios Electrónicos" (v1.0,
// 2005-04-13), word for word; LibreDTE (`lib/Sii/RespuestaEnvio.php`, `$estados`) and python-sii
// (`src/sii/lib/exchange.py`) list the same codes with the same words.

/**
 * EstadoRecepEnv: the envelope's receipt. The schema lists 0–3, 90, 91 and 99 (not a 0..n run);
 * every other value is refused.
 */
export const ESTADO_RECEP_ENV = {
  0: "Envio Recibido Conforme",
  1: "Envio Rechazado - Error de Schema",
  2: "Envio Rechazado - Error de Firma",
  3: "Envio Rechazado - RUT Receptor No Corresponde",
  90: "Envio Rechazado - Archivo Repetido",
  91: "Envio Rechazado - Archivo Ilegible",
  99: "Envio Rechazado - Otros",
} as const;

/**
 * EstadoRecepDTE: each document's receipt. The schema has 0–4 and 99, not just 0–3: 4 (a document
 * repeated) and 99 (other) are valid codes, as LibreDTE and python-sii also have them.
 */
export const ESTADO_RECEP_DTE = {
  0: "DTE Recibido OK",
  1: "DTE No Recibido - Error de Firma",
  2: "DTE No Recibido - Error en RUT Emisor",
  3: "DTE No Recibido - Error en RUT Receptor",
  4: "DTE No Recibido - DTE Repetido",
  99: "DTE No Recibido - Otros",
} as const;

/** EstadoDTE: the commercial result (LibreDTE writes the same words in capitals). */
export const ESTADO_DTE = {
  0: "DTE Aceptado OK",
  1: "DTE Aceptado con Discrepancias",
  2: "DTE Rechazado",
} as const;

export type EstadoRecepEnv = keyof typeof ESTADO_RECEP_ENV;
export type EstadoRecepDte = keyof typeof ESTADO_RECEP_DTE;
export type EstadoDte = keyof typeof ESTADO_DTE;

/**
 * The types an answer may name: SiiTypes_v10.xsd's DTEType (TipoDTE) and DocType (TipoDoc) both
 * list these six. A liquidación-factura (43), an export (110–112) or a boleta has no answer in
 * these schemas.
 */
export const ANSWERED_TYPES = [33, 34, 46, 52, 56, 61] as const;

/**
 * Declaracion: the text of Ley 19.983 a receipt carries, the `fixed` value of Recibos_v10.xsd
 * (15-06-05), so no other wording validates. LibreDTE (`lib/Sii/EnvioRecibos.php`, `agregar`) and
 * python-sii (`MERCH_DECL`) write it identically. The legend printed on a cedible copy reads
 * differently ("Art. 4°", "mercaderías"): that is the PDF's, not this element's.
 */
export const DECLARACION_LEY_19983 =
  "El acuse de recibo que se declara en este acto, de acuerdo a lo dispuesto en la letra b) del Art. 4, y la letra c) del Art. 5 de la Ley 19.983, acredita que la entrega de mercaderias o servicio(s) prestado(s) ha(n) sido recibido(s).";
