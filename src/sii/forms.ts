// The SII's legacy CGI pages carry their state in HTML forms: every hidden input must be posted
// back. Those pages are HTML 4.01 written by hand: upper-case tags and attributes, unquoted values,
// rows and cells never closed (devlas-cl/dte-sii SiiPortalAuth.js: "HTML 4.01 no exige tags </TR>
// de cierre"; SiiSession.js: `EXISTE_PROD`/`EXISTE_CERT` come without quotes), named entities in
// latin1. So they are read as a browser would, through a tolerant DOM (linkedom), not by pattern.
import { parseHTML } from "linkedom";

export interface HtmlForm {
  action: string;
  fields: [string, string][];
}

/** The part of linkedom's DOM these readers use. */
export interface PageElement {
  readonly localName: string;
  readonly textContent: string | null;
  readonly attributes: ArrayLike<{ name: string; value: string }>;
  querySelector(selectors: string): PageElement | null;
  querySelectorAll(selectors: string): ArrayLike<PageElement> & Iterable<PageElement>;
  closest(selectors: string): PageElement | null;
}

/**
 * The page's root element. A fragment without `<html>` is wrapped first: the parser otherwise
 * drops text before the first tag and roots the tree at whatever element comes first.
 */
export function parsePage(html: string): PageElement {
  const source = /<html[\s>]/i.test(html) ? html : `<html><body>${html}</body></html>`;
  const { document } = parseHTML(source) as unknown as { document: { documentElement: PageElement } };
  return document.documentElement;
}

/** An attribute by name whatever its case (`NAME=`, `name=`), entities decoded; null when absent. */
export function attr(element: PageElement, name: string): string | null {
  const wanted = name.toLowerCase();
  for (const attribute of Array.from(element.attributes)) if (attribute.name.toLowerCase() === wanted) return attribute.value;
  return null;
}

/** An element's visible text on one line: entities decoded, `&nbsp;` and runs of spaces as one space. */
export function textOf(element: PageElement | null): string {
  return (element?.textContent ?? "").replace(/[\s\u00a0]+/g, " ").trim();
}

// A textarea's content is raw text to the parser: its entities are still written out.
function decodeText(raw: string): string {
  return textOf(parsePage(`<p>${raw}</p>`).querySelector("p"));
}

/** What a browser posts for one control, in order; nothing for buttons, unchecked boxes or disabled fields. */
function controlFields(element: PageElement): [string, string][] {
  const name = attr(element, "name");
  if (!name || attr(element, "disabled") !== null) return [];
  if (element.localName === "select") {
    const options = Array.from(element.querySelectorAll("option"));
    const selected = options.filter((o) => attr(o, "selected") !== null);
    const optionValue = (o: PageElement) => attr(o, "value") ?? textOf(o);
    if (attr(element, "multiple") !== null) return selected.map((o): [string, string] => [name, optionValue(o)]);
    // One choice: the last option marked selected, else the first (as a browser shows it).
    const chosen = selected.at(-1) ?? options[0];
    return chosen ? [[name, optionValue(chosen)]] : [];
  }
  if (element.localName === "textarea") return [[name, decodeText(element.textContent ?? "")]];
  const type = (attr(element, "type") ?? "text").toLowerCase();
  // Buttons are chosen by the caller; a browser only sends the one that was pressed.
  if (["submit", "button", "image", "reset", "file"].includes(type)) return [];
  if ((type === "checkbox" || type === "radio") && attr(element, "checked") === null) return [];
  return [[name, attr(element, "value") ?? (type === "checkbox" || type === "radio" ? "on" : "")]];
}

/** Every form of the page: its action and the fields a browser would post, in document order. */
export function readForms(html: string): HtmlForm[] {
  return Array.from(parsePage(html).querySelectorAll("form")).map((form) => ({
    action: attr(form, "action") ?? "",
    fields: Array.from(form.querySelectorAll("input, select, textarea"))
      .filter((control) => control.closest("form") === form)
      .flatMap(controlFields),
  }));
}

/** The form whose action ends with `action`, with `overrides` applied (existing names replaced, new ones added). */
export function formFor(html: string, action: string, overrides: Record<string, string> = {}): [string, string][] | null {
  const form = readForms(html).find((f) => f.action.split("?")[0]?.endsWith(action));
  if (!form) return null;
  const fields = form.fields.map(([name, value]): [string, string] => [name, overrides[name] ?? value]);
  for (const [name, value] of Object.entries(overrides)) if (!fields.some(([n]) => n === name)) fields.push([name, value]);
  return fields;
}

export function fieldValue(fields: [string, string][], name: string): string | undefined {
  return fields.find(([n]) => n === name)?.[1];
}

/**
 * The label/value pairs of a page's tables: each row whose first cell names a field and whose
 * second holds its value (`<TR><TD>Rut<TD>&nbsp;76192083-9`, rows closed or not). Labels keep
 * their case and accents; the caller matches them.
 */
export function labelledValues(html: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const row of Array.from(parsePage(html).querySelectorAll("tr"))) {
    const cells = Array.from(row.querySelectorAll("td, th")).filter((cell) => cell.closest("tr") === row);
    const label = textOf(cells[0] ?? null);
    if (cells.length >= 2 && label) pairs.push([label, textOf(cells[1] ?? null)]);
  }
  return pairs;
}
