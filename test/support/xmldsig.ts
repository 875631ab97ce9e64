// An independent XMLDSig verifier for what the engine signs: xml-crypto, on the very signature
// node whose Reference names the signed part (a file may carry several, e.g. an envelope's and each
// of its documents').
import { DOMParser } from "@xmldom/xmldom";
import { SignedXml } from "xml-crypto";

const DSIG = "http://www.w3.org/2000/09/xmldsig#";

/** xml-crypto's verdict on the (first) signature whose Reference points at `uri`, with this certificate (DER base64). */
export function independentlyVerifies(xml: string, uri: string, certificateBase64: string): boolean {
  const doc = new DOMParser().parseFromString(xml, "text/xml");
  const signature = Array.from(doc.getElementsByTagNameNS(DSIG, "Signature")).find((s) =>
    Array.from(s.getElementsByTagNameNS(DSIG, "Reference")).some((r) => r.getAttribute("URI") === uri),
  );
  if (!signature) return false;
  const verifier = new SignedXml({ publicCert: `-----BEGIN CERTIFICATE-----\n${certificateBase64}\n-----END CERTIFICATE-----` });
  verifier.loadSignature(signature);
  return verifier.checkSignature(xml);
}
