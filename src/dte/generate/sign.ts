// Signing a DTE and wrapping signed DTEs in an EnvioDTE / EnvioBOLETA (docs/dte-engine.md §3.2,
// §3.3, §5, A.4). Every piece is written twice as it is built: as the file says it, and in its
// canonical form (C14N), which is what digests are taken over. The two differ only where this
// code decides (text escapes, redundant namespace declarations), so no parsing is needed; tests
// check the digests with an independent XMLDSig implementation. Signed DTEs are joined as
// strings, never re-serialized.
import { sha1Base64Sliced } from "../../lib/crypto.ts";
import { DSIG_NS, ENVELOPED, sha1Base64, signatureElement, signedInfo, type XmlSigner } from "../sign/xmldsig.ts";
import type { Container } from "./serialize.ts";

export const SII_NS = "http://www.sii.cl/SiiDte";
export const XSI = "http://www.w3.org/2001/XMLSchema-instance";
/** The declaration the SII's files open with: they are ISO-8859-1. */
export const XML_DECLARATION = '<?xml version="1.0" encoding="ISO-8859-1"?>\n';

/** Text as written in the file and in canonical form. */
export interface Written {
  file: string;
  canonical: string;
}

/**
 * The canonical form of text this engine wrote with `escapeXml`: C14N writes quotes literally in
 * text, and our elements carry no attributes that need escaping (control characters are refused).
 */
export const canonicalOfOwnText = (file: string): string =>
  file.includes("&") ? file.replaceAll("&apos;", "'").replaceAll("&quot;", '"') : file;

export interface SignedDte {
  /** `<DTE xmlns="…SiiDte" version="1.0">…</DTE>`. */
  xml: string;
  /**
   * The DTE's canonical form inside an envelope whose SetDTE declares the SiiDte namespace, in parts
   * the envelope's digest reads one after another (joined, each document's would be copied once more).
   */
  canonicalInEnvelope: readonly string[];
}

/**
 * The Signature element's canonical form inside a signed parent: its SignedInfo repeats the DSig
 * namespace and `extraNamespaces` (those it was signed with, rendered by that parent), all redundant there.
 */
export const canonicalSignature = (signature: string, extraNamespaces = "") =>
  signature.replace(`<SignedInfo xmlns="${DSIG_NS}"${extraNamespaces}>`, "<SignedInfo>");

/** Signs a DTE; `body` is the container's content up to and including the TED; TmstFirma is added here. */
export async function signDte(container: Container, id: string, body: Written, signer: XmlSigner, tmstFirma: string): Promise<SignedDte> {
  const close = `<TmstFirma>${tmstFirma}</TmstFirma></${container}>`;
  const inner = `${body.canonical}${close}`;
  // Standalone, the default namespace is rendered on the Documento (the apex of the digest). Hashed
  // in parts: the inner text is then made one piece in place, and the envelope's digest reads it again.
  const digest = sha1Base64([`<${container} xmlns="${SII_NS}" ID="${id}">`, inner]);
  const signature = await signatureElement(signer, signedInfo(`#${id}`, digest));
  return {
    xml: `<DTE xmlns="${SII_NS}" version="1.0"><${container} ID="${id}">${body.file}${close}${signature}</DTE>`,
    canonicalInEnvelope: [`<DTE version="1.0"><${container} ID="${id}">`, inner, `${canonicalSignature(signature)}</DTE>`],
  };
}

export interface Caratula {
  rutEmisor: string;
  rutEnvia: string;
  rutReceptor: string;
  fchResol: string;
  nroResol: number;
  tmstFirmaEnv: string;
}

/** The signed envelope's text (no XML declaration). */
export async function signEnvelope(
  kind: "EnvioDTE" | "EnvioBOLETA",
  caratula: Caratula,
  documents: { tipo: number; signed: SignedDte }[],
  signer: XmlSigner,
): Promise<string> {
  return (await signEnvelopeParts(kind, caratula, documents, signer)).join("");
}

/**
 * The same text in parts (opening, each DTE, closing with the signature), never joined here: at
 * 2 000 documents the whole is ~10 MB, and its parts are encoded as they are written out.
 */
export async function signEnvelopeParts(
  kind: "EnvioDTE" | "EnvioBOLETA",
  caratula: Caratula,
  documents: { tipo: number; signed: SignedDte }[],
  signer: XmlSigner,
  pause: () => Promise<void> = async () => {},
): Promise<string[]> {
  const types = [...new Set(documents.map((d) => d.tipo))].sort((a, b) => a - b);
  const subtotals = types
    .map((tipo) => `<SubTotDTE><TpoDTE>${tipo}</TpoDTE><NroDTE>${documents.filter((d) => d.tipo === tipo).length}</NroDTE></SubTotDTE>`)
    .join("");
  // RUTs, dates and numbers only: the carátula is its own canonical form.
  const caratulaXml =
    `<Caratula version="1.0"><RutEmisor>${caratula.rutEmisor}</RutEmisor><RutEnvia>${caratula.rutEnvia}</RutEnvia>` +
    `<RutReceptor>${caratula.rutReceptor}</RutReceptor><FchResol>${caratula.fchResol}</FchResol><NroResol>${caratula.nroResol}</NroResol>` +
    `<TmstFirmaEnv>${caratula.tmstFirmaEnv}</TmstFirmaEnv>${subtotals}</Caratula>`;
  // In context: SetDTE renders both declarations of the root; the DTEs' own xmlns is then redundant.
  const digest = await sha1Base64Sliced(
    [
      `<SetDTE xmlns="${SII_NS}" xmlns:xsi="${XSI}" ID="SetDoc">${caratulaXml}`,
      ...documents.flatMap((d) => d.signed.canonicalInEnvelope),
      "</SetDTE>",
    ],
    pause,
    // A pause every 100 documents, whatever the number of parts each one's canonical form comes in.
    100 * (documents[0]?.signed.canonicalInEnvelope.length ?? 1),
  );
  const signature = await signatureElement(signer, signedInfo("#SetDoc", digest, ENVELOPED, ` xmlns:xsi="${XSI}"`));
  const schema = kind === "EnvioDTE" ? "EnvioDTE_v10.xsd" : "EnvioBOLETA_v11.xsd";
  return [
    `<${kind} xmlns="${SII_NS}" xmlns:xsi="${XSI}" xsi:schemaLocation="${SII_NS} ${schema}" version="1.0"><SetDTE ID="SetDoc">${caratulaXml}`,
    ...documents.map((d) => d.signed.xml),
    `</SetDTE>${signature}</${kind}>`,
  ];
}
