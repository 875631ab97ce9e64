// Signing a part of an answer where it sits, as generate/sign.ts signs an envelope's SetDTE: the
// part is written once as the file says it and once canonically (C14N), and the digest is taken
// over the canonical text in its context, the root declaring the SII's namespace and XSI (inclusive
// C14N renders both on the signed part). No parsing: tests check every digest with xml-crypto.
import { sha1Base64Sliced } from "../../lib/crypto.ts";
import { SII_NS, XSI } from "../generate/sign.ts";
import { invalidDocument } from "../normalize/normalize.ts";
import { ENVELOPED, signatureElement, signedInfo, type XmlSigner } from "../sign/xmldsig.ts";
import type { Problems } from "./fields.ts";

/** The XSI declaration a signed part inherits, which its SignedInfo then renders too. */
export const XSI_DECLARATION = ` xmlns:xsi="${XSI}"`;

/** The root's opening tag: the SII's namespace, XSI and where its schema is. */
export const rootOpen = (root: string, schema: string) =>
  `<${root} xmlns="${SII_NS}"${XSI_DECLARATION} xsi:schemaLocation="${SII_NS} ${schema}" version="1.0">`;

/**
 * The Signature over `<tag ID="id">…</tag>` whose canonical content is `canonical` (in parts, hashed
 * one after another), with `pause` between slices of them.
 */
export async function signPart(
  tag: string,
  id: string,
  canonical: readonly string[],
  signer: XmlSigner,
  pause: () => Promise<void> = async () => {},
): Promise<string> {
  const digest = await sha1Base64Sliced([`<${tag} xmlns="${SII_NS}"${XSI_DECLARATION} ID="${id}">`, ...canonical, `</${tag}>`], pause);
  return signatureElement(signer, signedInfo(`#${id}`, digest, ENVELOPED, XSI_DECLARATION));
}

/** Refuses the answer when any check found a problem: one error naming every field. */
export function refuseIfAny(problems: Problems): void {
  if (problems.length) throw invalidDocument(problems, "");
}
