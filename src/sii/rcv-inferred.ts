// INFERRED WIRE FORMAT. The SII-side calls of these RCV operations are not public (sii-upstream
// §7.2: only the portal's read methods are known; the purchase type change is public and lives in
// rcv.ts as `cambiaTipoCompra`; daily receipts have a public read, obtieneListaBoletasMes, under
// complementoscvui/services/data/facadeServiceBoletasDiarias, but no public write). They are written here, and only here, against
// the facade's known conventions (the envelope, respEstado, rut/dv/ptributario fields), with
// method names and fields modelled on the read methods. The sandbox implements this same contract.
// When the real calls are observed, this module is the one place to change.
import type { CookieJar } from "./cookies.ts";
import type { SiiContext } from "./http.ts";
import { type FacadeAnswer, rcvCall } from "./rcv.ts";

export const INFERRED_METHODS = {
  setResumen: "ingresarResumenVenta",
  deleteResumen: "eliminarResumenVenta",
  setBoletasDiarias: "ingresarDetalleBoletasDiarias",
  getDetalleResumen: "getDetalleResumenVenta",
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

export function deleteResumen(ctx: SiiContext, jar: CookieJar, rut: string, periodo: string, tipos: number[]): Promise<FacadeAnswer> {
  return rcvCall(ctx, jar, INFERRED_METHODS.deleteResumen, { ...taxpayer(rut, periodo), tiposDoc: tipos });
}

export function setBoletasDiarias(
  ctx: SiiContext,
  jar: CookieJar,
  rut: string,
  periodo: string,
  tipo: number,
  dias: BoletasDia[],
): Promise<FacadeAnswer> {
  return rcvCall(ctx, jar, INFERRED_METHODS.setBoletasDiarias, {
    ...taxpayer(rut, periodo),
    codTipoDoc: tipo,
    dias: dias.map((d) => ({ dia: d.dia, folioDesde: d.folio_inicial, folioHasta: d.folio_final, ...amounts(d) })),
  });
}

export function getDetalleResumen(ctx: SiiContext, jar: CookieJar, rut: string, periodo: string): Promise<FacadeAnswer> {
  return rcvCall(ctx, jar, INFERRED_METHODS.getDetalleResumen, taxpayer(rut, periodo));
}
