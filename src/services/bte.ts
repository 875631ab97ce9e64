// The BTE (boletas de prestación de servicios de terceros) operations, with no HTTP: the year's
// slips the clave's taxpayer issued, month by month, from the SII's annual page (src/sii/bte.ts,
// which checks the page's rows and totals).
import type { Caller } from "../platform/caller.ts";
import { annualBte } from "../sii/bte.ts";
import type { ClaveCredential } from "../sii/login.ts";
import { siiServicesFor } from "./sii-context.ts";

/**
 * The year's summary of the slips `pass`'s taxpayer issued (always the issuer: never another RUT),
 * with the SII's page as received and its summary table's cells for the answers in its own terms.
 */
export async function issuedBteSummary(caller: Caller, pass: ClaveCredential, anio: number) {
  const { ctx, sessions } = await siiServicesFor(caller);
  const { page, cells, mensual, anual } = await sessions.withClave(pass, (jar) => annualBte(ctx, jar, anio));
  const message = mensual.length ? `BTEs issued in ${anio}` : `No BTEs issued in ${anio}`;
  return { data: { anio, emisor: pass.rut, mensual, anual }, message, page, cells };
}
