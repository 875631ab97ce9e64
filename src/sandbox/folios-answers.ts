// The folio stamping's rough answers, which the sandbox gives only when a test asks for them, and
// the CAF file download both the stamping and the re-obtaining pages end in. The texts of DTE-OFGA
// and of "ya fue autorizado el rango desde N hasta M" around those words are inferred
// (devlas-cl/dte-sii CafSolicitor.js matches only the words).
import { encodeLatin1 } from "../lib/latin1.ts";
import { type CgiContext, page } from "./cvc-cgi.ts";
import { buildCaf } from "./folios-caf.ts";
import type { FolioRange } from "./records.ts";
import type { SandboxState } from "./state.ts";
import { sandboxTaxpayer } from "./taxpayers.ts";

/**
 * Answers the sandbox gives only when asked (tests set them on `sandbox.state`; each use counts
 * down): `ofga` the next downloads (of_genera_archivo, rf_genera_archivo) answer DTE-OFGA;
 * `loseStamping` the next stampings are made and their answer lost (the connection drops);
 * `alreadyAuthorized` the next stampings are made and answered "ya fue autorizado el rango".
 */
export interface CafQuirks {
  ofga: number;
  loseStamping: number;
  alreadyAuthorized: number;
}

const quirks = new WeakMap<SandboxState, CafQuirks>();

export function cafQuirks(state: SandboxState): CafQuirks {
  let q = quirks.get(state);
  if (!q) {
    q = { ofga: 0, loseStamping: 0, alreadyAuthorized: 0 };
    quirks.set(state, q);
  }
  return q;
}

/** Uses one of a quirk's answers, if any is left. */
export function takeQuirk(state: SandboxState, name: keyof CafQuirks): boolean {
  const q = cafQuirks(state);
  if (q[name] <= 0) return false;
  q[name]--;
  return true;
}

/** The sandbox's fetch turns an answer with this header into a dropped connection (src/sandbox/app.ts). */
export const DROPPED = () => new Response(null, { headers: { "x-sandbox-connection-reset": "1" } });

export const OFGA_PAGE = () =>
  page("ERROR", "<p>DTE-OFGA: NO FUE POSIBLE GENERAR EL ARCHIVO DE FOLIOS AUTORIZADOS. INTENTE NUEVAMENTE MAS TARDE.</p>");

export const ALREADY_AUTHORIZED_PAGE = (range: FolioRange) =>
  page(
    "SOLICITUD DE TIMBRAJE ELECTRONICO DE DOCUMENTOS",
    `<p>LA SOLICITUD YA FUE PROCESADA: ya fue autorizado el rango desde ${range.desde} hasta ${range.hasta}.</p>`,
  );

/** The CAF file of a stamped range (made now for a range the sandbox seeded without one). */
export async function cafFile(ctx: CgiContext, rut: string, tipo: number, range: FolioRange): Promise<Response> {
  if (takeQuirk(ctx.state, "ofga")) return OFGA_PAGE();
  const razonSocial = (sandboxTaxpayer(rut)?.razon_social ?? "").toUpperCase();
  range.caf ??= await buildCaf({ rut, razonSocial, tipo, desde: range.desde, hasta: range.hasta, fecha: range.fecha });
  const stamp = range.fecha.replaceAll("-", "");
  return new Response(encodeLatin1(range.caf), {
    headers: {
      "content-type": "text/xml; charset=ISO-8859-1",
      "content-disposition": `attachment; filename=FoliosSII${rut.replace("-", "")}${tipo}${range.desde}${stamp}.xml`,
    },
  });
}
