// EnvioRecibos (EnvioRecibos_v10.xsd with Recibos_v10.xsd): the receiver's acknowledgement, under Ley
// 19.983, that the goods or services of each document were received. Each Recibo's DocumentoRecibo
// is signed on its own (the signature inside the Recibo, after it), then the SetRecibos that holds
// them all (the signature the root's last child). RutFirma is the signer's RUT: whoever signs the
// receipts declares them. Pure: the caller passes the signer and the time.
import { canonicalOfOwnText, canonicalSignature, XML_DECLARATION } from "../generate/sign.ts";
import type { XmlSigner } from "../sign/xmldsig.ts";
import { DECLARACION_LEY_19983 } from "./codes.ts";
import { type AnswerParties, contact, type DocumentKey, documentKey, entries, type Problems, rut, stamp, text } from "./fields.ts";
import { refuseIfAny, rootOpen, signPart, XSI_DECLARATION } from "./signed.ts";

/** A Recibo: the document whose goods or services were received, and where. */
export interface Receipt extends DocumentKey {
  /** Recinto: the place where they were received (at most 80 characters). */
  place: string;
}

export interface EnvioRecibosInput {
  /** The Caratula: RutResponde (the receiver), RutRecibe (the documents' issuer), the contact. */
  header: AnswerParties;
  /** One Recibo each, one or more (at most MAX_ENTRIES); a type and folio once. */
  receipts: Receipt[];
}

/** The SetRecibos's ID. */
const SET_ID = "SetRecibos";
/** A DocumentoRecibo's ID: its type and folio, which a set names once. */
const reciboId = (receipt: Receipt) => `T${receipt.type}F${receipt.folio}`;

/**
 * The signed EnvioRecibos for `receipts`, each and the set signed at `now`; `pause` lets other work
 * run between one receipt's signature and the next (some 2 000 of them are a second or two of CPU).
 * Refuses (DteError, every field named) what the schemas would.
 */
export async function envioRecibos(
  input: EnvioRecibosInput,
  signer: XmlSigner & { rut: string },
  now: Date,
  pause: () => Promise<void> = async () => {},
): Promise<string> {
  const problems: Problems = [];
  const signedAt = stamp(now);
  const header = input.header ?? ({} as AnswerParties);
  const caratula =
    '<Caratula version="1.0">' +
    rut(problems, "header.responder", "RutResponde", header.responder) +
    rut(problems, "header.recipient", "RutRecibe", header.recipient) +
    contact(problems, "header", header) +
    `<TmstFirmaEnv>${signedAt}</TmstFirmaEnv></Caratula>`;
  const signerRut = rut(problems, "signer.rut", "RutFirma", signer.rut);
  const seen = new Map<string, number>();
  const bodies = entries<Receipt>(problems, "receipts", input.receipts, "receipts").map(([i, receipt]) => {
    const at = `receipts[${i}]`;
    const body =
      documentKey(problems, at, receipt, "TipoDoc") +
      text(problems, `${at}.place`, "Recinto", receipt.place, 80) +
      signerRut +
      `<Declaracion>${DECLARACION_LEY_19983}</Declaracion><TmstFirmaRecibo>${signedAt}</TmstFirmaRecibo>`;
    // The ID is an xs:ID: a type and folio given twice would be two equal IDs.
    const id = reciboId(receipt);
    const earlier = seen.get(id);
    if (earlier !== undefined)
      problems.push({ path: `${at}.folio`, message: `repeats type ${receipt.type} folio ${receipt.folio} of receipts[${earlier}]` });
    seen.set(id, i);
    return { id, body };
  });
  refuseIfAny(problems);

  const files: string[] = [];
  const canonical: string[] = [canonicalOfOwnText(caratula)];
  for (const { id, body } of bodies) {
    const inner = canonicalOfOwnText(body);
    const signature = await signPart("DocumentoRecibo", id, [inner], signer);
    const open = `<Recibo version="1.0"><DocumentoRecibo ID="${id}">`;
    files.push(`${open}${body}</DocumentoRecibo>${signature}</Recibo>`);
    // Inside the signed set, the receipt's SignedInfo repeats namespaces the set already renders.
    canonical.push(`${open}${inner}</DocumentoRecibo>${canonicalSignature(signature, XSI_DECLARATION)}</Recibo>`);
    await pause();
  }
  const signature = await signPart("SetRecibos", SET_ID, canonical, signer, pause);
  return `${XML_DECLARATION}${rootOpen("EnvioRecibos", "EnvioRecibos_v10.xsd")}<SetRecibos ID="${SET_ID}">${caratula}${files.join("")}</SetRecibos>${signature}</EnvioRecibos>`;
}
