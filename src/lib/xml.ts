// Just enough XML for the SII's small SOAP and RESPUESTA documents: escape, unescape, and find
// elements by local name whatever their prefix (the SII's answers vary: `getSeedReturn`,
// `ns1:getSeedReturn`, `SII:RESP_HDR`). Whole-document parsing of large or untrusted XML is the
// DTE engine's job, not this.

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

const SPECIAL = /[&<>"']/;

export function escapeXml(text: string): string {
  if (!SPECIAL.test(text)) return text;
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

export function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, entity: string) => {
    if (entity[0] === "#") {
      const code = entity[1] === "x" ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
      return String.fromCodePoint(code);
    }
    return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[entity] ?? "";
  });
}

function elementPattern(localName: string): RegExp {
  const name = localName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`<((?:[A-Za-z_][\\w.-]*:)?${name})(\\s[^>]*)?(?:/>|>([\\s\\S]*?)</\\1\\s*>)`, "g");
}

/** The raw inner markup of every element with this local name, in document order. */
export function elementsInner(xml: string, localName: string): string[] {
  return [...xml.matchAll(elementPattern(localName))].map((m) => m[3] ?? "");
}

/** The raw inner markup of the first element with this local name. */
export function elementInner(xml: string, localName: string): string | null {
  return elementsInner(xml, localName)[0] ?? null;
}

/** The text of the first element with this local name: CDATA kept as is, entities decoded. */
export function elementText(xml: string, localName: string): string | null {
  const inner = elementInner(xml, localName);
  if (inner === null) return null;
  const cdata = /^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/.exec(inner);
  return cdata ? (cdata[1] ?? "") : unescapeXml(inner.replace(/<[^>]*>/g, ""));
}

/** Removes the `<?xml …?>` declaration so a document can be embedded or compared. */
export function stripXmlDeclaration(xml: string): string {
  return xml.replace(/^\s*<\?xml[^>]*\?>\s*/, "");
}
