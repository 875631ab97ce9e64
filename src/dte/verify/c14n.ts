// Canonical XML (C14N 1.0 without comments, inclusive and exclusive) of one element of a parsed
// document, for checking signatures made by other software. Received documents were signed in
// several ways (docs/dte-engine.md §3.5), so the namespace context is a parameter: the
// declarations inherited from ancestors (inclusive C14N in context), none at all, or a default
// namespace forced on the apex.
import type { XmlElement } from "../xml/parse.ts";

export type C14nMode = "inclusive" | "exclusive" | "no-namespaces";

export interface C14nOptions {
  mode: C14nMode;
  /** Namespace declarations in scope at the apex (prefix → URI; "" is the default namespace). */
  inherited?: ReadonlyMap<string, string>;
  /** An element left out of the output (the enveloped signature). */
  omit?: XmlElement;
}

const XML_NS = "http://www.w3.org/XML/1998/namespace";

function escapeText(text: string): string {
  return text.replace(/[&<>\r]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#xD;" })[ch] as string);
}

function escapeAttribute(value: string): string {
  return value.replace(
    /[&<"\t\n\r]/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", '"': "&quot;", "\t": "&#x9;", "\n": "&#xA;", "\r": "&#xD;" })[ch] as string,
  );
}

const prefixOf = (name: string) => (name.includes(":") ? name.slice(0, name.indexOf(":")) : "");
const localOf = (name: string) => (name.includes(":") ? name.slice(name.indexOf(":") + 1) : name);

/** The namespace declarations an element itself makes (prefix → URI). */
export function declarations(element: XmlElement): Map<string, string> {
  const declared = new Map<string, string>();
  for (const { name, value } of element.attributes) {
    if (name === "xmlns") declared.set("", value);
    else if (name.startsWith("xmlns:")) declared.set(name.slice(6), value);
  }
  return declared;
}

/** The canonical form of `apex` and its subtree. */
export function canonicalize(apex: XmlElement, options: C14nOptions): string {
  const out: string[] = [];
  const writeChildren = (element: XmlElement, scope: ReadonlyMap<string, string>, rendered: ReadonlyMap<string, string>) => {
    for (const child of element.children) {
      if (child.type === "text") out.push(escapeText(child.text));
      // Canonical XML without comments (the only form the SII's signatures use) drops comments and PIs too.
      else if (child.type === "element" && child !== options.omit) write(child, scope, rendered);
    }
  };
  const write = (element: XmlElement, scope: ReadonlyMap<string, string>, rendered: ReadonlyMap<string, string>) => {
    // Most elements have no attributes. Below the apex such an element declares nothing, and
    // (except in exclusive C14N, which renders prefixes where they are used) has nothing to render.
    if (element.attributes.length === 0 && element !== apex && options.mode !== "exclusive") {
      out.push(`<${element.name}>`);
      writeChildren(element, scope, rendered);
      out.push(`</${element.name}>`);
      return;
    }
    const inScope = new Map(scope);
    for (const [prefix, uri] of declarations(element)) inScope.set(prefix, uri);

    const emitted = new Map<string, string>();
    if (options.mode !== "no-namespaces") {
      const candidates =
        options.mode === "inclusive"
          ? [...inScope.keys()]
          : [
              prefixOf(element.name),
              ...element.attributes.filter((a) => a.name.includes(":") && !a.name.startsWith("xmlns:")).map((a) => prefixOf(a.name)),
            ];
      for (const prefix of new Set(candidates)) {
        if (prefix === "xml") continue;
        const uri = inScope.get(prefix) ?? "";
        // Written only where it changes what the output says above (so `xmlns=""` only undoes a default).
        if (uri !== (rendered.get(prefix) ?? "")) emitted.set(prefix, uri);
      }
    }

    const namespaceAttrs = [...emitted]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([prefix, uri]) => (prefix === "" ? ` xmlns="${escapeAttribute(uri)}"` : ` xmlns:${prefix}="${escapeAttribute(uri)}"`));
    const uriOf = (name: string) => {
      const prefix = prefixOf(name);
      if (prefix === "") return "";
      return prefix === "xml" ? XML_NS : (inScope.get(prefix) ?? "");
    };
    const plainAttrs = element.attributes
      .filter((a) => a.name !== "xmlns" && !a.name.startsWith("xmlns:"))
      .map((a) => ({ ...a, uri: uriOf(a.name), local: localOf(a.name) }))
      .sort((a, b) => (a.uri === b.uri ? (a.local < b.local ? -1 : a.local > b.local ? 1 : 0) : a.uri < b.uri ? -1 : 1))
      .map((a) => ` ${a.name}="${escapeAttribute(a.value)}"`);

    out.push(`<${element.name}${namespaceAttrs.join("")}${plainAttrs.join("")}>`);
    writeChildren(element, inScope, emitted.size ? new Map([...rendered, ...emitted]) : rendered);
    out.push(`</${element.name}>`);
  };
  write(apex, options.inherited ?? new Map(), new Map());
  return out.join("");
}
