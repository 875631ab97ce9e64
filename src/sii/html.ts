// Reading the SII's HTML pages: entities (latin1 pages use named ones) and table cells.
import { unescapeXml } from "../lib/xml.ts";

const NAMED: Record<string, string> = {
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
  nbsp: " ",
};

export function decodeHtml(text: string): string {
  return unescapeXml(text.replace(/&([A-Za-z]+);/g, (whole, name: string) => NAMED[name] ?? whole));
}

/** The rows of the tables in an HTML fragment, each as its cells' text. */
export function tableRows(html: string): string[][] {
  return [...html.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/gi)].map(([, row = ""]) =>
    [...row.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/gi)].map(([, cell = ""]) => decodeHtml(cell.replace(/<[^>]+>/g, "").trim())),
  );
}
