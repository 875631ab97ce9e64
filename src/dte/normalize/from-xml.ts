// A DTE XML (a lone DTE, or an EnvioDTE / EnvioBOLETA with one or more) to the JSON node shape
// the normalizer takes: SII tag names, the content of `Documento` (or `Liquidacion` /
// `Exportaciones`), repeated elements as lists, numbers where the schema has numbers. The TED,
// the signing time and the signature are dropped: they belong to the signed original, and a
// normalized document must be stamped and signed again.
import type { EnvelopeContents } from "../verify/envelope.ts";
import { childElements, localName, type XmlElement } from "../xml/parse.ts";
import { NUMERIC_FIELDS } from "./fields.ts";

type Node = Record<string, unknown>;

export type Envelope = EnvelopeContents["kind"];

export interface XmlDocuments {
  /** What the XML was: a lone DTE or one of the SII's envelopes. */
  envelope: Envelope;
  documents: Node[];
}

const DROPPED = new Set(["TED", "TmstFirma", "Signature"]);
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

/**
 * The documents of an upload as the envelope reader read it (src/dte/verify/envelope.ts): each
 * DTE's one Documento (or Liquidacion / Exportaciones), the very node its signature is checked on.
 */
export function dteDocumentsFromXml(contents: Pick<EnvelopeContents, "kind" | "dtes">): XmlDocuments {
  return { envelope: contents.kind, documents: contents.dtes.map(dteDocumentFromXml) };
}

/** One DTE of an upload as `dteDocumentsFromXml` takes it (its one Documento), for a caller that pauses between them. */
export function dteDocumentFromXml({ documento }: Pick<EnvelopeContents["dtes"][number], "documento">): Node {
  return toNode(documento);
}

/** Element children by local name; a name seen twice becomes a list. Attributes (ID, version) are left out. */
function toNode(element: XmlElement): Node {
  const out: Node = {};
  for (const child of childElements(element)) {
    const name = localName(child.name);
    if (DROPPED.has(name)) continue;
    const value = child.children.some((c) => c.type === "element") ? toNode(child) : leaf(name, child);
    // Own properties only: `<constructor>` or `<toString>` must not find Object.prototype's members
    // (assigning one makes it the object's own), and `<__proto__>` must become a field, not the
    // object's prototype (only a definition does that; defining every field made each object slow).
    const existing = Object.hasOwn(out, name) ? out[name] : undefined;
    if (Array.isArray(existing)) existing.push(value);
    else if (name === "__proto__") {
      const field = { value: existing === undefined ? value : [existing, value], enumerable: true, writable: true, configurable: true };
      Object.defineProperty(out, name, field);
    } else out[name] = existing === undefined ? value : [existing, value];
  }
  return out;
}

function leaf(name: string, element: XmlElement): string | number {
  const text = element.children.map((c) => (c.type === "text" ? c.text : "")).join("");
  // Numbers without a leading zero become numbers; codes such as "011" stay text.
  if (NUMERIC_FIELDS.has(name) && PLAIN_NUMBER.test(text.trim()) && !/^-?0\d/.test(text.trim())) return Number(text.trim());
  return text;
}
