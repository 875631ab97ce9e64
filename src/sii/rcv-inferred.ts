// INFERRED WIRE FORMAT. The SII-side calls of these RCV operations are not public (docs/sii-services.md
// §7.2: only the portal's read methods are known; the purchase type change is public and lives in
// rcv.ts as `cambiaTipoCompra`; daily receipts have a public read, obtieneListaBoletasMes, under
// complementoscvui/services/data/facadeServiceBoletasDiarias, but no public write). They are written here, and only here, against
// the facade's known conventions (the envelope, respEstado, rut/dv/ptributario fields), with
// method names and fields modelled on the read methods. The sandbox implements this same contract.
// When the real calls are observed, this module is the one place to change.
import { ApiError } from "../lib/api-error.ts";
import type { CookieJar } from "./cookies.ts";
import type { SiiContext } from "./http.ts";
import { BOLETAS_SERVICE, complementoCall, type FacadeAnswer, rcvCall, rcvService } from "./rcv.ts";

export const INFERRED_METHODS = {
  setResumen: "ingresarResumenVenta",
  deleteResumen: "eliminarResumenVenta",
  /** On the daily receipts' service (complementoscvui …/facadeServiceBoletasDiarias, public by its read). */
  setBoletasDiarias: "ingresarDetalleBoletasDiarias",
} as const;

export interface ResumenVenta {
  tipo_documento: number;
  documentos: number;
  monto_exento: number;
  monto_neto: number;
  monto_iva: number;
  monto_total: number;
}

export interface BoletasDia {
  dia: number;
  documentos: number;
  folio_inicial: number;
  folio_final: number;
  monto_exento: number;
  monto_neto: number;
  monto_iva: number;
  monto_total: number;
}

function taxpayer(rut: string, periodo: string) {
  const [rutEmisor, dvEmisor] = rut.split("-");
  return { rutEmisor, dvEmisor, ptributario: periodo };
}

const amounts = (r: Omit<ResumenVenta, "tipo_documento">) => ({
  totDoc: r.documentos,
  mntExe: r.monto_exento,
  mntNeto: r.monto_neto,
  mntIva: r.monto_iva,
  mntTotal: r.monto_total,
});

export function setResumen(
  ctx: SiiContext,
  jar: CookieJar,
  rut: string,
  periodo: string,
  resumenes: ResumenVenta[],
): Promise<FacadeAnswer> {
  return rcvCall(ctx, jar, INFERRED_METHODS.setResumen, {
    ...taxpayer(rut, periodo),
    resumenes: resumenes.map((r) => ({ codTipoDoc: r.tipo_documento, ...amounts(r) })),
  });
}

/** Deletes the period's summaries of these types; 404 when the SII says there is none to delete. */
export async function deleteResumen(ctx: SiiContext, jar: CookieJar, rut: string, periodo: string, tipos: number[]): Promise<FacadeAnswer> {
  try {
    return await rcvCall(ctx, jar, INFERRED_METHODS.deleteResumen, { ...taxpayer(rut, periodo), tiposDoc: tipos });
  } catch (err) {
    if (err instanceof ApiError && /no existe resumen/i.test(String(err.init.details?.sii_message ?? ""))) {
      throw new ApiError(404, "HTTP_404", "There is no summary of those types in this period", { details: err.init.details });
    }
    throw err;
  }
}

/** A day's entry: `dia` is the read's field; the others are named after the month totals the read carries (inferred). */
export const dayEntry = (d: BoletasDia) => ({
  dia: d.dia,
  totalDocumentos: d.documentos,
  folioInicial: d.folio_inicial,
  folioFinal: d.folio_final,
  montoExento: d.monto_exento,
  montoNeto: d.monto_neto,
  montoIva: d.monto_iva,
  montoTotal: d.monto_total,
});

/**
 * The daily receipts of a period: on the service whose read (obtieneListaBoletasMes) is public,
 * with the read's `{rut, dv, periodo, tipoDocumento}`; the method name and `dias` are inferred. The
 * answer is checked like the facade's (respEstado).
 */
export async function setBoletasDiarias(
  ctx: SiiContext,
  jar: CookieJar,
  rut: string,
  periodo: string,
  tipo: number,
  dias: BoletasDia[],
): Promise<FacadeAnswer> {
  const [body, dv] = rut.split("-");
  const answer = await complementoCall(
    ctx,
    jar,
    BOLETAS_SERVICE,
    INFERRED_METHODS.setBoletasDiarias,
    { rut: body, dv, periodo, tipoDocumento: String(tipo), dias: dias.map(dayEntry) },
    false,
  );
  const code = answer.respEstado?.codRespuesta;
  if (code !== 0) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII did not take the daily receipts", {
      details: {
        service: rcvService(INFERRED_METHODS.setBoletasDiarias),
        sii_code: code ?? null,
        sii_message: answer.respEstado?.msgeRespuesta ?? null,
      },
    });
  }
  return answer;
}
