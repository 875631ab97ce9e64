// The signed seed for GetTokenFromSeed (docs/dte-engine.md §3.4): `<getToken><item><Semilla>…` with an
// enveloped signature over the whole document, appended as the last child of getToken.
import { callerSignerWarnings } from "../../certificates/signer-profile.ts";
import { sha1Base64, signatureElement, signedInfo, type XmlSigner } from "./xmldsig.ts";

export function seedDocument(seed: string): string {
  return `<getToken><item><Semilla>${seed}</Semilla></item></getToken>`;
}

export async function signSeed(seed: string, signer: XmlSigner): Promise<string> {
  if (!/^\d{1,20}$/.test(seed)) throw new Error("a seed is digits only");
  // A certificate the SII would refuse as a signer is refused here, naming why, instead of by its token service.
  callerSignerWarnings(signer.certificateBase64);
  const document = seedDocument(seed);
  // The document has no attributes, namespaces or empty elements: it is its own canonical form.
  const info = signedInfo("", sha1Base64(document));
  const signature = await signatureElement(signer, info);
  return `<?xml version="1.0" encoding="UTF-8"?>${document.replace("</getToken>", `${signature}</getToken>`)}`;
}
