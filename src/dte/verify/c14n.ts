// Canonical XML (C14N 1.0 without comments, inclusive and exclusive) of one element of a parsed
// document, for checking signatures made by other software. Received documents were signed in
// several ways (docs/dte-engine.md §3.5), so the namespace context is a parameter: the
// declarations inherited from ancestors (inclusive C14N in context), none at all, or a default
// namespace forced on the apex.
import type { XmlElement, XmlNode, XmlText } from "../xml/parse.ts";

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

/** What is left to write: an element (with the namespaces in scope and those already rendered), a text, or literal output. */
type Task = string | XmlText | { element: XmlElement; scope: ReadonlyMap<string, string>; rendered: ReadonlyMap<string, string> };

/** A canonicalization under way: the output so far and what is left, last task first. */
interface Writing {
  out: string[];
  tasks: Task[];
}

/** The canonical form of `apex` and its subtree. */
export function canonicalize(apex: XmlElement, options: C14nOptions): string {
  const writing = begin(apex, options);
  writeSome(writing, apex, options, Number.POSITIVE_INFINITY);
  return writing.out.join("");
}

/** Elements written between two pauses: well under 1 ms of work (a thousand took up to 47 ms on a loaded machine). */
const C14N_SLICE = 250;

/**
 * The same canonical form as pieces (joined, they are `canonicalize`'s text), written `slice`
 * elements at a time with `pause` between them: an envelope's signature covers its whole SetDTE
 * (2 000 documents, ~9 MB), 100–600 ms in one step. Pieces, so that no step joins them all.
 */
export async function canonicalPiecesAsync(
  apex: XmlElement,
  options: C14nOptions,
  pause: () => Promise<void>,
  slice = C14N_SLICE,
): Promise<string[]> {
  const writing = begin(apex, options);
  while (!writeSome(writing, apex, options, slice)) await pause();
  return writing.out;
}

function begin(apex: XmlElement, options: C14nOptions): Writing {
  return { out: [], tasks: [{ element: apex, scope: options.inherited ?? new Map(), rendered: new Map() }] };
}

/** Writes at most `elements` elements of what is left; true when the writing is done. */
function writeSome(writing: Writing, apex: XmlElement, options: C14nOptions, elements: number): boolean {
  const { out, tasks } = writing;
  let written = 0;
  for (let task = tasks.pop(); task !== undefined; task = tasks.pop()) {
    if (typeof task === "string") out.push(task);
    else if ("type" in task) out.push(escapeText(task.text));
    else {
      const { element } = task;
      const { tag, scope, rendered } = openTag(element, task.scope, task.rendered, apex, options);
      out.push(tag);
      tasks.push(`</${element.name}>`);
      for (let i = element.children.length - 1; i >= 0; i--) {
        const child = element.children[i] as XmlNode;
        if (child.type === "text") tasks.push(child);
        // Canonical XML without comments (the only form the SII's signatures use) drops comments and PIs too.
        else if (child.type === "element" && child !== options.omit) tasks.push({ element: child, scope, rendered });
      }
      if (++written >= elements) return tasks.length === 0;
    }
  }
  return true;
}

/** An element's canonical start tag, and the namespaces in scope and rendered for its children. */
function openTag(
  element: XmlElement,
  scope: ReadonlyMap<string, string>,
  rendered: ReadonlyMap<string, string>,
  apex: XmlElement,
  options: C14nOptions,
): { tag: string; scope: ReadonlyMap<string, string>; rendered: ReadonlyMap<string, string> } {
  // Most elements have no attributes. Below the apex such an element declares nothing, and
  // (except in exclusive C14N, which renders prefixes where they are used) has nothing to render.
  if (element.attributes.length === 0 && element !== apex && options.mode !== "exclusive") {
    return { tag: `<${element.name}>`, scope, rendered };
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

  return {
    tag: `<${element.name}${namespaceAttrs.join("")}${plainAttrs.join("")}>`,
    scope: inScope,
    rendered: emitted.size ? new Map([...rendered, ...emitted]) : rendered,
  };
}
