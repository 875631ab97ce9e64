// The SII's legacy CGI pages carry their state in HTML forms: every hidden input must be posted
// back. Those pages are HTML 4.01 written by hand: upper-case tags and attributes, unquoted values,
// rows and cells never closed (devlas-cl/dte-sii SiiPortalAuth.js: "HTML 4.01 no exige tags </TR>
// de cierre"; SiiSession.js: `EXISTE_PROD`/`EXISTE_CERT` come without quotes), named entities in
// latin1. So they are read as a browser would, through the page's DOM (html.ts), not by pattern.
import { cellsOf, type HtmlDocument, type HtmlElement, parsePage, textOf } from "./html.ts";

export interface HtmlForm {
  action: string;
  fields: [string, string][];
}

// A textarea's content is raw text to the parser: its entities are still written out.
function decodeText(raw: string): string {
  return textOf(parsePage(`<p>${raw}</p>`).querySelector("p"));
}

/** What a browser posts for one control, in order; nothing for buttons, unchecked boxes or disabled fields. */
function controlFields(element: HtmlElement): [string, string][] {
  const name = element.getAttribute("name");
  if (!name || element.hasAttribute("disabled")) return [];
  const tag = element.tagName.toLowerCase();
  if (tag === "select") {
    const options = Array.from(element.querySelectorAll("option"));
    const selected = options.filter((o) => o.hasAttribute("selected"));
    const optionValue = (o: HtmlElement) => o.getAttribute("value") ?? textOf(o);
    if (element.hasAttribute("multiple")) return selected.map((o): [string, string] => [name, optionValue(o)]);
    // One choice: the last option marked selected, else the first (as a browser shows it).
    const chosen = selected.at(-1) ?? options[0];
    return chosen ? [[name, optionValue(chosen)]] : [];
  }
  if (tag === "textarea") return [[name, decodeText(element.textContent ?? "")]];
  const type = (element.getAttribute("type") ?? "text").toLowerCase();
  // Buttons are chosen by the caller; a browser only sends the one that was pressed.
  if (["submit", "button", "image", "reset", "file"].includes(type)) return [];
  if ((type === "checkbox" || type === "radio") && !element.hasAttribute("checked")) return [];
  return [[name, element.getAttribute("value") ?? (type === "checkbox" || type === "radio" ? "on" : "")]];
}

/** Every form of the page: its action and the fields a browser would post, in document order. */
export function readForms(html: string): HtmlForm[] {
  return formsOf(parsePage(html));
}

/** `readForms` of a page already parsed (a page read several ways is parsed once: about 4 ms for 3 KB). */
export function formsOf(page: HtmlDocument): HtmlForm[] {
  return Array.from(page.querySelectorAll("form")).map((form) => ({
    action: form.getAttribute("action") ?? "",
    fields: Array.from(form.querySelectorAll("input, select, textarea"))
      .filter((control) => control.closest("form") === form)
      .flatMap(controlFields),
  }));
}

/** The form whose action ends with `action`, with `overrides` applied (existing names replaced, new ones added). */
export function formFor(html: string, action: string, overrides: Record<string, string> = {}): [string, string][] | null {
  return formIn(parsePage(html), action, overrides);
}

/** `formFor` of a page already parsed. */
export function formIn(page: HtmlDocument, action: string, overrides: Record<string, string> = {}): [string, string][] | null {
  const form = formsOf(page).find((f) => f.action.split("?")[0]?.endsWith(action));
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
export function labelledValues(html: string | HtmlDocument): [string, string][] {
  const pairs: [string, string][] = [];
  const page = typeof html === "string" ? parsePage(html) : html;
  for (const row of Array.from(page.querySelectorAll("tr"))) {
    const [first, second] = cellsOf(row);
    const label = textOf(first);
    if (second && label) pairs.push([label, textOf(second)]);
  }
  return pairs;
}
