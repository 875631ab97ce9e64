// The TED (timbre electrónico, docs/dte-engine.md §2): the DD built from the document and the CAF,
// flattened with no namespace, signed SHA1withRSA with the CAF's private key over its ISO-8859-1
// bytes. The flattened TED is also the PDF417 barcode's payload.
import { signRsa } from "../../lib/crypto.ts";
import { bytesToBase64 } from "../../lib/encoding.ts";
import { encodeLatin1 } from "../../lib/latin1.ts";
import { escapeXml } from "../../lib/xml.ts";
import { isNode, type Node } from "../normalize/sanitize.ts";
import type { Caf } from "./caf.ts";
import { formatNumber } from "./serialize.ts";
import { canonicalOfOwnText, type Written } from "./sign.ts";

const node = (value: unknown): Node => (isNode(value) ? value : {});
const first = (value: unknown): Node => node(Array.isArray(value) ? value[0] : value);
const text = (value: unknown) => (typeof value === "number" ? formatNumber(value) : typeof value === "string" ? value : "");
/** The first 40 characters (not bytes), trimmed, escaped as in the file (§2.1). */
const cut40 = (value: string) =>
  // 40 UTF-16 units or fewer are 40 characters or fewer: nothing to cut, no need to split the text into characters.
  escapeXml((value.length <= 40 ? value : Array.from(value).slice(0, 40).join("")).trim());

/**
 * The flattened `<TED version="1.0">…</TED>` for a document, as the file has it (also the barcode's
 * content) and in canonical form; `tsted` is the stamping time (Chile, no zone).
 */
export async function stampTed(dte: Node, caf: Caf, tsted: string): Promise<Written> {
  const encabezado = node(dte.Encabezado);
  const idDoc = node(encabezado.IdDoc);
  const receptor = node(encabezado.Receptor);
  const rutRecep = text(receptor.RUTRecep);
  const before =
    `<DD><RE>${escapeXml(text(node(encabezado.Emisor).RUTEmisor))}</RE><TD>${text(idDoc.TipoDTE)}</TD><F>${text(idDoc.Folio)}</F>` +
    `<FE>${escapeXml(text(idDoc.FchEmis))}</FE><RR>${escapeXml(rutRecep)}</RR><RSR>${cut40(text(receptor.RznSocRecep) || rutRecep)}</RSR>` +
    `<MNT>${text(node(encabezado.Totales).MntTotal) || "0"}</MNT><IT1>${cut40(text(first(dte.Detalle).NmbItem))}</IT1>`;
  const after = `<TSTED>${tsted}</TSTED></DD>`;
  // FRMT signs the DD exactly as the file writes it (§2.2), in ISO-8859-1.
  const dd = `${before}${caf.element}${after}`;
  const signature = await signRsa(caf.signingKey, encodeLatin1(dd));
  const frmt = `<FRMT algoritmo="SHA1withRSA">${bytesToBase64(signature)}</FRMT></TED>`;
  return {
    file: `<TED version="1.0">${dd}${frmt}`,
    canonical: `<TED version="1.0">${canonicalOfOwnText(before)}${caf.canonical}${after}${frmt}`,
  };
}
