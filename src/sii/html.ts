// Reading the SII's HTML pages through a DOM (linkedom), never regular expressions over markup:
// the SII serves HTML 4.01 without </tr> and </td>, upper-case tags and named entities (devlas-cl/dte-sii's
// portal code notes "HTML 4.01 no exige tags </TR> de cierre"), which a real parser closes and decodes as a
// browser does. Only the page readers import this module: no JSON or XML path parses with it, though as a
// static import linkedom is loaded with the rest of the Worker (about 320 KiB minified).
import { parseHTML } from "linkedom";
import { Parser } from "../lib/htmlparser2-bundle.ts";

/** The part of a DOM element the page readers use (linkedom's types need the DOM lib, which this project does not load). */
export interface HtmlElement {
  readonly tagName: string;
  readonly textContent: string | null;
  readonly children: ArrayLike<HtmlElement>;
  readonly parentElement: HtmlElement | null;
  readonly nextElementSibling: HtmlElement | null;
  readonly attributes: ArrayLike<{ readonly name: string; readonly value: string }>;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  hasAttributes(): boolean;
  getAttributeNames(): string[];
  getAttributeNode(name: string): { readonly value: string } | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  querySelector(selectors: string): HtmlElement | null;
  querySelectorAll(selectors: string): ArrayLike<HtmlElement>;
  closest(selectors: string): HtmlElement | null;
  remove(): void;
}

export interface HtmlDocument {
  readonly documentElement: HtmlElement | null;
  readonly body: HtmlElement | null;
  querySelector(selectors: string): HtmlElement | null;
  querySelectorAll(selectors: string): ArrayLike<HtmlElement>;
}

/** Something elements can be looked for in. */
export type HtmlScope = HtmlDocument | HtmlElement;

/**
 * A page (or a fragment of one) as a document. A fragment is wrapped in <html><body> so that
 * several top-level elements stay siblings under one root. Attribute names are lower-cased as a
 * browser does (`<INPUT TYPE=HIDDEN NAME=RUT>` answers getAttribute("name")): linkedom keeps their case.
 */
export function parsePage(html: string): HtmlDocument {
  const whole = /<html[\s>]/i.test(html) ? html : `<html><body>${html}</body></html>`;
  const document = parseHTML(whole).document as unknown as HtmlDocument;
  // By name: linkedom's `attributes` is a Proxy built per element, and every page read pays this.
  for (const element of Array.from(document.querySelectorAll("*"))) {
    if (!element.hasAttributes()) continue;
    for (const name of element.getAttributeNames()) {
      const lower = name.toLowerCase();
      if (lower === name) continue;
      const value = element.getAttributeNode(name)?.value ?? "";
      element.removeAttribute(name);
      if (!element.hasAttribute(lower)) element.setAttribute(lower, value);
    }
  }
  return document;
}

/** A part of a page: one `<div>` element's markup, and how many tables it holds. */
export interface HtmlSection {
  id: string;
  html: string;
  tables: number;
}

/**
 * The markup of each `<div>` whose `id` passes `wanted` (the outer one, where they nest), found by
 * the parser linkedom builds its DOM with (htmlparser2's), so each is the element the page's DOM
 * would hold. Building linkedom's DOM is what reading a page costs (about 0.7 ms a KB): a reader that
 * needs one part of a large page gives `parsePage` that part alone.
 */
export function divSections(html: string, wanted: (id: string) => boolean): HtmlSection[] {
  const sections: HtmlSection[] = [];
  let depth = 0;
  let open: { id: string; start: number; depth: number; tables: number } | null = null;
  let ending = false;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === "table" && open) open.tables++;
        if (name !== "div") return;
        depth++;
        const id = attributes.id ?? "";
        if (!open && wanted(id)) open = { id, start: parser.startIndex, depth, tables: 0 };
      },
      onclosetag(name, implied) {
        if (name !== "div") return;
        if (open?.depth === depth) {
          // Closed by another tag (its parent's end, say): the section ends where that tag starts.
          const end = ending ? html.length : implied ? parser.startIndex : parser.endIndex + 1;
          sections.push({ id: open.id, html: html.slice(open.start, end), tables: open.tables });
          open = null;
        }
        depth--;
      },
    },
    { lowerCaseAttributeNames: true, decodeEntities: true },
  );
  parser.write(html);
  ending = true;
  parser.end();
  return sections;
}

/** An element's text as a reader sees it: entities decoded, non-breaking spaces as spaces, runs of white space as one. */
export function textOf(node: HtmlElement | null | undefined): string {
  return (node?.textContent ?? "").replace(/[\s\u00a0]+/g, " ").trim();
}

/** What a reader of the page sees, in short: the text of the body without scripts and styles. */
export function visibleText(doc: HtmlDocument, max = 500): string {
  for (const hidden of Array.from(doc.querySelectorAll("script, style"))) hidden.remove();
  return textOf(doc.body ?? doc.documentElement).slice(0, max);
}

/** The cells (th and td, in order) of a row. */
export function cellsOf(row: HtmlElement): HtmlElement[] {
  return Array.from(row.children).filter((cell) => /^t[dh]$/i.test(cell.tagName));
}

/**
 * Every row of the tables in `scope`, in document order, each as its cells' text. A row of a nested
 * table is listed on its own, not inside its outer cell's text.
 */
export function rowsOf(scope: HtmlScope): string[][] {
  return Array.from(scope.querySelectorAll("tr")).map((row) => cellsOf(row).map(textOf));
}

/** The rows of the tables in an HTML page or fragment, each as its cells' text. */
export function tableRows(html: string): string[][] {
  return rowsOf(parsePage(html));
}

export { decodeHtml } from "./entities.ts";
