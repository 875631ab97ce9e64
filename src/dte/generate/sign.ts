// Signing a DTE and wrapping signed DTEs in an EnvioDTE / EnvioBOLETA (research: dte-engine §3.2,
// §3.3, §5). Digests are taken from the exact text being written (parsed, then canonicalized), so
// what is signed is what the file says. Signed DTEs are joined as strings, never re-serialized.

import { ENVELOPED, sha1Base64, signatureElement, signedInfo, type XmlSigner } from "../sign/xmldsig.ts";
import { canonicalize } from "../verify/c14n.ts";
import { childElements, parseXml, type XmlElement } from "../xml/parse.ts";
import type { Container } from "./serialize.ts";

export const SII_NS = "http://www.sii.cl/SiiDte";
const XSI = "http://www.w3.org/2001/XMLSchema-instance";

/**
 * `<DTE xmlns="…SiiDte" version="1.0">` with the container and its signature. `body` is the
 * container's content up to and including the TED; TmstFirma is added here.
 */
export async function signDte(container: Container, id: string, body: string, signer: XmlSigner, tmstFirma: string): Promise<string> {
  const unsigned = `<DTE xmlns="${SII_NS}" version="1.0"><${container} ID="${id}">${body}<TmstFirma>${tmstFirma}</TmstFirma></${container}></DTE>`;
  const apex = childElements(parseXml(unsigned).root)[0] as XmlElement;
  const digest = await sha1Base64(canonicalize(apex, { mode: "inclusive", inherited: new Map([["", SII_NS]]) }));
  const signature = await signatureElement(signer, signedInfo(`#${id}`, digest));
  return unsigned.replace(/<\/DTE>$/, `${signature}</DTE>`);
}

export interface Caratula {
  rutEmisor: string;
  rutEnvia: string;
  rutReceptor: string;
  fchResol: string;
  nroResol: number;
  tmstFirmaEnv: string;
}

/** The signed envelope's text (no XML declaration); `documents` are signed DTEs with their types. */
export async function signEnvelope(
  kind: "EnvioDTE" | "EnvioBOLETA",
  caratula: Caratula,
  documents: { tipo: number; xml: string }[],
  signer: XmlSigner,
): Promise<string> {
  const types = [...new Set(documents.map((d) => d.tipo))].sort((a, b) => a - b);
  const subtotals = types
    .map((tipo) => `<SubTotDTE><TpoDTE>${tipo}</TpoDTE><NroDTE>${documents.filter((d) => d.tipo === tipo).length}</NroDTE></SubTotDTE>`)
    .join("");
  const schema = kind === "EnvioDTE" ? "EnvioDTE_v10.xsd" : "EnvioBOLETA_v11.xsd";
  const unsigned =
    `<${kind} xmlns="${SII_NS}" xmlns:xsi="${XSI}" xsi:schemaLocation="${SII_NS} ${schema}" version="1.0"><SetDTE ID="SetDoc">` +
    `<Caratula version="1.0"><RutEmisor>${caratula.rutEmisor}</RutEmisor><RutEnvia>${caratula.rutEnvia}</RutEnvia>` +
    `<RutReceptor>${caratula.rutReceptor}</RutReceptor><FchResol>${caratula.fchResol}</FchResol><NroResol>${caratula.nroResol}</NroResol>` +
    `<TmstFirmaEnv>${caratula.tmstFirmaEnv}</TmstFirmaEnv>${subtotals}</Caratula>` +
    `${documents.map((d) => d.xml).join("")}</SetDTE></${kind}>`;
  const setDte = childElements(parseXml(unsigned).root)[0] as XmlElement;
  const inherited = new Map([
    ["", SII_NS],
    ["xsi", XSI],
  ]);
  const digest = await sha1Base64(canonicalize(setDte, { mode: "inclusive", inherited }));
  const signature = await signatureElement(signer, signedInfo("#SetDoc", digest, ENVELOPED, ` xmlns:xsi="${XSI}"`));
  return unsigned.replace(new RegExp(`</${kind}>$`), `${signature}</${kind}>`);
}
