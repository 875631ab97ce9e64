// A DTE XML (a lone DTE, or an EnvioDTE / EnvioBOLETA with one or more) to the JSON node shape
// the normalizer takes: SII tag names, the content of `Documento` (or `Liquidacion` /
// `Exportaciones`), repeated elements as lists, numbers where the schema has numbers. The TED,
// the signing time and the signature are dropped: they belong to the signed original, and a
// normalized document must be stamped and signed again.
import { childElements, localName, parseXml, type XmlElement } from "../xml/parse.ts";
import { NUMERIC_FIELDS } from "./fields.ts";

type Node = Record<string, unknown>;

export type Envelope = "DTE" | "EnvioDTE" | "EnvioBOLETA";

export interface XmlDocuments {
  /** What the XML was: a lone DTE or one of the SII's envelopes. */
  envelope: Envelope;
  documents: Node[];
}

export class DteXmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DteXmlError";
  }
}

const CONTAINERS = new Set(["Documento", "Liquidacion", "Exportaciones"]);
const DROPPED = new Set(["TED", "TmstFirma", "Signature"]);
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

/** Parses XML text (see `decodeXmlBytes`) and returns its documents; throws XmlParseError or DteXmlError. */
export function dteDocumentsFromXml(xml: string): XmlDocuments {
  const { root } = parseXml(xml);
  const rootName = localName(root.name);
  if (rootName === "DTE") return { envelope: "DTE", documents: [documentOf(root, 0)] };
  if (rootName !== "EnvioDTE" && rootName !== "EnvioBOLETA") {
    throw new DteXmlError(`the root element is <${root.name}>; expected DTE, EnvioDTE or EnvioBOLETA`);
  }
  const set = childElements(root).find((e) => localName(e.name) === "SetDTE");
  if (!set) throw new DteXmlError(`<${root.name}> has no SetDTE`);
  const dtes = childElements(set).filter((e) => localName(e.name) === "DTE");
  if (!dtes.length) throw new DteXmlError(`<${root.name}> holds no DTE`);
  return { envelope: rootName, documents: dtes.map(documentOf) };
}

function documentOf(dte: XmlElement, index: number): Node {
  const containers = childElements(dte).filter((e) => CONTAINERS.has(localName(e.name)));
  if (containers.length !== 1) {
    throw new DteXmlError(`DTE ${index + 1} must hold exactly one Documento, Liquidacion or Exportaciones (found ${containers.length})`);
  }
  return toNode(containers[0] as XmlElement);
}

/** Element children by local name; a name seen twice becomes a list. Attributes (ID, version) are left out. */
function toNode(element: XmlElement): Node {
  const out: Node = {};
  for (const child of childElements(element)) {
    const name = localName(child.name);
    if (DROPPED.has(name)) continue;
    const value = childElements(child).length ? toNode(child) : leaf(name, child);
    // Own properties only: `<constructor>` or `<toString>` must not find Object.prototype's members,
    // and `<__proto__>` must become a field, not the object's prototype.
    const existing = Object.hasOwn(out, name) ? out[name] : undefined;
    if (Array.isArray(existing)) existing.push(value);
    else
      Object.defineProperty(out, name, {
        value: existing === undefined ? value : [existing, value],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}

function leaf(name: string, element: XmlElement): string | number {
  const text = element.children.map((c) => (c.type === "text" ? c.text : "")).join("");
  // Numbers without a leading zero become numbers; codes such as "011" stay text.
  if (NUMERIC_FIELDS.has(name) && PLAIN_NUMBER.test(text.trim()) && !/^-?0\d/.test(text.trim())) return Number(text.trim());
  return text;
}
