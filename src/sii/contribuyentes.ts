// The contribuyentes operations: Mi SII (misiir.sii.cl), the taxpayer's private file of the session's
// taxpayer (docs/sii-services.md §4.1).

import { ApiError } from "../lib/api-error.ts";
import { formEncodeLatin1 } from "../lib/latin1.ts";
import { browse, type Page } from "./browse.ts";
import type { CookieJar } from "./cookies.ts";
import { pageText, type SiiContext } from "./http.ts";
import { SessionExpired } from "./sessions.ts";

const MISII = "https://misiir.sii.cl/cgi_misii";

export interface TaxpayerData {
  rut: string;
  razon_social: string;
  direccion: string;
  telefono: string;
  email: string;
  giros: string[];
}

interface Carta {
  codigoError?: number;
  descripcionError?: string;
  contribuyente?: { rut?: string; dv?: string; razonSocial?: string; eMail?: string; telefonoMovil?: string };
  actEcos?: { descripcion?: string }[];
  direcciones?: { calle?: string; numero?: string; comunaDescripcion?: string; telefono?: string; mail?: string }[];
}

function checked(page: Page): Page {
  if (page.status >= 300 && page.status < 400) throw new SessionExpired();
  return page;
}

export async function taxpayerPage(ctx: SiiContext, jar: CookieJar): Promise<string> {
  return checked(await browse(ctx, jar, `${MISII}/siihome.cgi`, { service: "misii_home", read: true }, { sameHostOnly: true })).text;
}

export async function taxpayerData(ctx: SiiContext, jar: CookieJar): Promise<TaxpayerData> {
  const page = checked(
    await browse(
      ctx,
      jar,
      `${MISII}/CViewCarta.cgi`,
      { service: "misii_carta", read: true },
      { method: "POST", form: formEncodeLatin1([["opc", "112"]]), sameHostOnly: true },
    ),
  );
  let carta: Carta;
  try {
    carta = JSON.parse(page.text) as Carta;
  } catch {
    throw new ApiError(502, "SII_GATEWAY_ERROR", "Mi SII did not answer with the taxpayer's file", {
      details: { service: "misii_carta", sii_status: page.status, sii_message: pageText(page.text) },
    });
  }
  if (carta.codigoError !== 0 || !carta.contribuyente) {
    const notFound = /no existe|no encontrad/i.test(carta.descripcionError ?? "");
    throw new ApiError(
      notFound ? 404 : 502,
      notFound ? "HTTP_404" : "SII_GATEWAY_ERROR",
      notFound ? "The SII has no such taxpayer" : "Mi SII refused the request",
      {
        details: { service: "misii_carta", sii_code: carta.codigoError, sii_message: carta.descripcionError },
      },
    );
  }
  const who = carta.contribuyente;
  const address = carta.direcciones?.[0];
  const direccion = address
    ? [[address.calle, address.numero].filter(Boolean).join(" "), address.comunaDescripcion].filter(Boolean).join(", ")
    : "";
  return {
    rut: `${who.rut}-${who.dv}`,
    razon_social: who.razonSocial ?? "",
    direccion,
    telefono: who.telefonoMovil || address?.telefono || "",
    email: who.eMail || address?.mail || "",
    giros: (carta.actEcos ?? []).map((g) => g.descripcion ?? "").filter(Boolean),
  };
}
