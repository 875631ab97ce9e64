// HTML entities in SII text that is not read through a DOM (pageText's excerpts, attribute values,
// messages): the SII's HTML 4.01 pages write Spanish letters as named entities
// (`Postulaci&oacute;n`, `Se&ntilde;or`, `&iquest;`), which must reach JSON as the characters they stand for.
import { unescapeXml } from "../lib/xml.ts";

const NAMED: Readonly<Record<string, string>> = {
  aacute: "á",
  eacute: "é",
  iacute: "í",
  oacute: "ó",
  uacute: "ú",
  ntilde: "ñ",
  Aacute: "Á",
  Eacute: "É",
  Iacute: "Í",
  Oacute: "Ó",
  Uacute: "Ú",
  Ntilde: "Ñ",
  uuml: "ü",
  Uuml: "Ü",
  iquest: "¿",
  iexcl: "¡",
  ordm: "º",
  ordf: "ª",
  deg: "°",
  laquo: "«",
  raquo: "»",
  middot: "·",
  nbsp: " ",
};

/** Named and numeric entities as characters; an unknown name stays as written. No DOM needed. */
export function decodeHtml(text: string): string {
  return unescapeXml(text.replace(/&([A-Za-z]+);/g, (whole, name: string) => NAMED[name] ?? whole));
}
