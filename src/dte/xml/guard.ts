// Uploaded XML (DTEs, envelopes, CAFs) is screened before anything parses it, in one linear pass:
// a DOCTYPE is what entity expansion and external entities need, and neither deep nesting nor
// megabyte attributes appear in any SII document. Anything refused here is answered with 400.

export const XML_LIMITS = {
  /** The deepest SII document (EnvioDTE > SetDTE > DTE > Documento > Detalle > … > Signature) is ~12. */
  maxDepth: 64,
  /** Certificates and signatures are element text; attribute values are IDs, versions and URIs. */
  maxAttributeLength: 4096,
} as const;

const TAG =
  /<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[^\s=>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|<!(DOCTYPE|ENTITY)|<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>/gi;
const ATTRIBUTE_VALUE = /=\s*(?:"([^"]*)"|'([^']*)')/g;

/** Why this XML is refused, or null when it may be parsed. */
export function unsafeXmlReason(xml: string): string | null {
  let depth = 0;
  for (const match of xml.matchAll(TAG)) {
    const [, closing, name, attributes, selfClosing, declaration] = match;
    if (declaration) return `${declaration.toUpperCase()} declarations are not accepted (entities are refused)`;
    if (!name) continue;
    if (closing) {
      depth--;
      continue;
    }
    for (const value of (attributes ?? "").matchAll(ATTRIBUTE_VALUE)) {
      if ((value[1] ?? value[2] ?? "").length > XML_LIMITS.maxAttributeLength) {
        return `an attribute of <${name}> is longer than ${XML_LIMITS.maxAttributeLength} characters`;
      }
    }
    if (!selfClosing && ++depth > XML_LIMITS.maxDepth) return `elements are nested deeper than ${XML_LIMITS.maxDepth} levels`;
  }
  return null;
}
