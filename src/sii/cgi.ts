// The legacy DTE CGIs on palena/maullin (folios, annulment, certification): forms posted back
// inside a certificate session, where a redirect to the login means the session is gone and the
// SII's "no autorizado para operar" means the certificate lacks power over the taxpayer.

import { ApiError } from "../lib/api-error.ts";
import { formEncodeLatin1 } from "../lib/latin1.ts";
import { browse, type Page } from "./browse.ts";
import type { CookieJar } from "./cookies.ts";
import { type Ambiente, siiHosts } from "./hosts.ts";
import { pageText, type SiiContext } from "./http.ts";
import { SessionExpired } from "./sessions.ts";

const NOT_AUTHORIZED = /no autorizado para operar/i;

export function cgiUrl(ambiente: Ambiente, path: string): string {
  return `https://${siiHosts(ambiente).dte}/cvc_cgi/dte/${path}`;
}

/** One step of a CGI flow: GET, or POST of `form`; only GETs may be retried. */
export async function cgiStep(
  ctx: SiiContext,
  jar: CookieJar,
  url: string,
  service: string,
  form?: [string, string][],
  referer?: string,
): Promise<Page> {
  const page = await browse(
    ctx,
    jar,
    url,
    { service, read: form === undefined },
    { method: form ? "POST" : "GET", form: form && formEncodeLatin1(form), sameHostOnly: true, headers: referer ? { referer } : {} },
  );
  if (page.status >= 300 && page.status < 400 && /CAutInicio|autInicio/i.test(page.headers.get("location") ?? ""))
    throw new SessionExpired();
  if (NOT_AUTHORIZED.test(page.text)) {
    throw new ApiError(403, "AUTH_ERROR", "The certificate has no permission over this taxpayer at the SII", {
      details: { service, sii_message: pageText(page.text) },
    });
  }
  return page;
}
