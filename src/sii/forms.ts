// The SII's legacy CGI pages carry their state in HTML forms: every hidden input must be posted
// back. This reads a page's forms: action and fields in order (inputs, and the selected option of
// each select). The pages are small and regular, so attribute matching is enough.
import { unescapeXml } from "../lib/xml.ts";

export interface HtmlForm {
  action: string;
  fields: [string, string][];
}

function attribute(tag: string, name: string): string | null {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  if (!match) return null;
  return unescapeXml(match[1] ?? match[2] ?? match[3] ?? "");
}

export function readForms(html: string): HtmlForm[] {
  const forms: HtmlForm[] = [];
  for (const [, open = "", body = ""] of html.matchAll(/(<form\b[^>]*>)([\s\S]*?)<\/form>/gi)) {
    const fields: [string, string][] = [];
    for (const [element = ""] of body.matchAll(/<input\b[^>]*>|<select\b[\s\S]*?<\/select>/gi)) {
      const name = attribute(element, "name");
      if (!name) continue;
      if (/^<select/i.test(element)) {
        const selected = /<option\b[^>]*\bselected\b[^>]*>/i.exec(element)?.[0] ?? /<option\b[^>]*>/i.exec(element)?.[0] ?? "";
        fields.push([name, attribute(selected, "value") ?? ""]);
        continue;
      }
      const type = (attribute(element, "type") ?? "text").toLowerCase();
      // Buttons are chosen by the caller; a browser only sends the one that was pressed.
      if (type === "submit" || type === "button" || type === "image" || type === "reset") continue;
      if ((type === "checkbox" || type === "radio") && !/\schecked\b/i.test(element)) continue;
      fields.push([name, attribute(element, "value") ?? ""]);
    }
    forms.push({ action: attribute(open, "action") ?? "", fields });
  }
  return forms;
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
