// Requests to the SII's web applications the way a browser makes them: the jar's cookies,
// redirects followed by hand (so every Set-Cookie on the way is kept), a browser User-Agent.

import { ApiError } from "../lib/api-error.ts";
import type { CookieJar } from "./cookies.ts";
import { pageText, type SiiAnswer, type SiiCall, type SiiContext, siiFetch } from "./http.ts";

export const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
const MAX_REDIRECTS = 5;

export interface Page extends SiiAnswer {
  /** Where the last redirect led. */
  url: string;
}

// The elements page readers read: forms, tables, lists of options, preformatted text.
const READ = ["form", "table", "select", "textarea", "pre"];

/**
 * Whether an HTML page was cut short on the way. One that ends in </html> is whole. One that does
 * not is whole too when nothing a reader reads was left open: every form, table, select, textarea
 * and pre it opens is closed, and it does not stop inside a tag, a comment or a script. Inferred
 * (no public capture shows the SII's pages either way): legacy HTML 4.01 pages may leave out
 * </body></html> as they leave out </tr>, or carry bytes after them, and refusing those would
 * refuse whole answers; a page cut in the middle of what is read still leaves its table open.
 */
export function cutShort(text: string): boolean {
  if (!/<html[\s>]/i.test(text) || /<\/html>\s*$/i.test(text)) return false;
  let rest = text.replace(/<!--[\s\S]*?-->/g, "");
  if (rest.includes("<!--")) return true;
  rest = rest.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, "");
  if (/<(script|style)\b/i.test(rest)) return true;
  if (rest.lastIndexOf("<") > rest.lastIndexOf(">")) return true;
  const count = (pattern: string) => (rest.match(new RegExp(pattern, "gi")) ?? []).length;
  return READ.some((tag) => count(`<${tag}[\\s>]`) > count(`</${tag}\\s*>`));
}

/** A page cut short is a failure of the SII call: reading it would mistake a missing part for an answer (no form, no range). */
function checkComplete(answer: SiiAnswer, service: string): void {
  if (cutShort(answer.text)) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII's page arrived cut short", {
      details: { service, sii_status: answer.status, sii_message: pageText(answer.text) || answer.text.slice(-200) },
    });
  }
}

export async function browse(
  ctx: SiiContext,
  jar: CookieJar,
  url: string,
  call: SiiCall,
  init: { method?: "GET" | "POST"; form?: string; headers?: Record<string, string>; sameHostOnly?: boolean } = {},
): Promise<Page> {
  let current = url;
  let method = init.method ?? "GET";
  let body = init.form;
  for (let hop = 0; ; hop++) {
    const headers: Record<string, string> = { "user-agent": BROWSER_UA, accept: "text/html,application/xhtml+xml,*/*", ...init.headers };
    const cookie = jar.header(current);
    if (cookie) headers.cookie = cookie;
    if (body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
    const answer = await siiFetch(ctx, new Request(current, { method, headers, body, redirect: "manual" }), call);
    jar.store(current, answer.headers);
    const location = answer.headers.get("location");
    const next = location ? new URL(location, current) : null;
    const leaves = init.sameHostOnly && next?.hostname !== new URL(current).hostname;
    if (answer.status < 300 || answer.status >= 400 || !next || leaves || hop >= MAX_REDIRECTS) {
      checkComplete(answer, call.service);
      return { ...answer, url: current };
    }
    current = next.toString();
    method = "GET";
    body = undefined;
    // The client certificate is for the login host only.
    call = { ...call, clientCertificate: undefined };
  }
}
