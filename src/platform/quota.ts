// Every operation of the interface with its scope and quota weight: the one table the routes,
// the README and the quota middleware read. Weights: the spec fixes the folio, taxpayer-data,
// BHE and BTE ones; otherwise 1 for a single read, 2 for list/detail/aggregate reads and PDF,
// 5 for writes to the SII and submissions.
import type { Scope } from "../ports.ts";

export interface OperationSpec {
  method: "GET" | "POST" | "PUT";
  path: string;
  /** null: any valid token may call it. */
  scope: Scope | null;
  weight: number;
  /** POSTs that change state at the SII honour `Idempotency-Key`. */
  changesState: boolean;
}

type Row = [OperationSpec["method"], string, Scope | null, number, ("write" | "read")?];

const rows: Row[] = [
  // Folios, taxpayer data, BHE, BTE (fully specified)
  ["POST", "/api/v1/sii/dte/caf/solicitar/{emisor}/{dte}/{cantidad}", "sii:write", 5, "write"],
  ["POST", "/api/v1/sii/dte/caf/anular/{emisor}/{dte}/{folio_inicial}/{folio_final}", "sii:write", 5, "write"],
  ["POST", "/api/v1/sii/dte/contribuyentes/datos/{contribuyente}", "sii:read", 2],
  ["POST", "/api/v1/sii/bhe/emitidas/email/{codigo}", "sii:write", 2, "write"],
  ["POST", "/api/v1/sii/bte/emitidas/resumen/{anio}", "sii:read", 2],
  // RCV
  ["POST", "/api/v1/sii/rcv/compras/async/solicitar/{receptor}/{periodo}/{dte}/{estado}", "sii:read", 1],
  ["POST", "/api/v1/sii/rcv/compras/async/estado/{receptor}/{periodo}/{solicitud_id}/{dte}/{estado}", "sii:read", 1],
  ["POST", "/api/v1/sii/rcv/compras/async/detalle/{receptor}/{periodo}/{solicitud_id}/{dte}/{estado}", "sii:read", 2],
  ["POST", "/api/v1/sii/rcv/compras/detalle/{receptor}/{periodo}/{dte}/{estado}", "sii:read", 2],
  ["POST", "/api/v1/sii/rcv/compras/detalle/documento/{receptor}/{periodo}/{dte}/{folio}", "sii:read", 1],
  ["POST", "/api/v1/sii/rcv/compras/resumen/{receptor}/{periodo}/{estado}", "sii:read", 2],
  ["POST", "/api/v1/sii/rcv/compras/set_tipo_transaccion/{receptor}/{periodo}", "sii:write", 5, "write"],
  ["POST", "/api/v1/sii/rcv/ventas/async/solicitar/{emisor}/{periodo}/{dte}", "sii:read", 1],
  ["POST", "/api/v1/sii/rcv/ventas/async/estado/{emisor}/{periodo}/{solicitud_id}/{dte}", "sii:read", 1],
  ["POST", "/api/v1/sii/rcv/ventas/async/detalle/{emisor}/{periodo}/{solicitud_id}/{dte}", "sii:read", 2],
  ["POST", "/api/v1/sii/rcv/ventas/delete_resumen/{emisor}/{periodo}", "sii:write", 5, "write"],
  ["POST", "/api/v1/sii/rcv/ventas/detalle/{emisor}/{periodo}/{dte}", "sii:read", 2],
  ["POST", "/api/v1/sii/rcv/ventas/get_detalle_resumen/{emisor}/{periodo}", "sii:read", 2],
  ["POST", "/api/v1/sii/rcv/ventas/resumen/{emisor}/{periodo}", "sii:read", 2],
  ["POST", "/api/v1/sii/rcv/ventas/set_boletas_diarias/{emisor}/{periodo}/{dte}", "sii:write", 5, "write"],
  ["POST", "/api/v1/sii/rcv/ventas/set_resumen/{emisor}/{periodo}", "sii:write", 5, "write"],
  // Certification
  ["POST", "/api/v1/sii/certificacion/boletas/solicitar_set/{contribuyente}", "sii:write", 5, "write"],
  ["POST", "/api/v1/sii/certificacion/contribuyentes/datos/{contribuyente}", "sii:read", 2],
  ["POST", "/api/v1/sii/certificacion/facturas/postular/{contribuyente}", "sii:write", 5, "write"],
  ["POST", "/api/v1/sii/certificacion/facturas/solicitar_set/{contribuyente}", "sii:write", 5, "write"],
  ["POST", "/api/v1/sii/certificacion/postulacion/avance/{contribuyente}", "sii:read", 1],
  // Exchanges
  ["POST", "/api/v1/platform/dte/intercambios/cesion/{emisor}/{dte}/{folio}", "sii:read", 1],
  ["POST", "/api/v1/platform/dte/intercambios/eventos/{emisor}/{dte}/{folio}", "sii:read", 2],
  ["POST", "/api/v1/platform/dte/intercambios/recepcion_sii/{emisor}/{dte}/{folio}", "sii:read", 1],
  ["POST", "/api/v1/platform/dte/intercambios/respuesta_sii", "sii:write", 5, "write"],
  // Vehicles
  ["GET", "/api/v1/sii/vehiculos/categorias/caracteristicas/{categoria}", "sii:read", 1],
  ["GET", "/api/v1/sii/vehiculos/categorias/marcas/{categoria}", "sii:read", 1],
  ["GET", "/api/v1/sii/vehiculos/categorias/tipos/{categoria}", "sii:read", 1],
  ["POST", "/api/v1/sii/vehiculos/tasacion/buscar", "sii:read", 2],
  // Platform documents and submissions
  ["POST", "/api/v1/platform/dte/documentos/escpos", "sii:read", 1],
  ["POST", "/api/v1/platform/dte/documentos/generar", "sii:write", 2],
  ["POST", "/api/v1/platform/dte/documentos/pdf", "sii:read", 2],
  ["POST", "/api/v1/platform/dte/formatos/json", "sii:read", 1],
  ["POST", "/api/v1/platform/dte/envios/enviar", "sii:write", 5, "write"],
  ["POST", "/api/v1/platform/dte/envios/estado/{emisor}/{track_id}", "sii:read", 1],
  ["POST", "/api/v1/platform/dte/envios/verificar", "sii:read", 2],
  // Indicators
  ["GET", "/api/v1/sii/indicadores/correccion_monetaria/anual/{anio}", "sii:read", 1],
  ["GET", "/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/{anio}/{mes}", "sii:read", 1],
  ["GET", "/api/v1/sii/indicadores/uf/anual/{anio}/{mes}/{dia}", "sii:read", 1],
  // Proxy settings
  ["GET", "/api/v1/settings/proxy", "settings:read", 1],
  ["PUT", "/api/v1/settings/proxy", "settings:write", 1],
  ["POST", "/api/v1/settings/proxy/test", "settings:write", 1],
  // The gateway's own: a token's quota state costs nothing.
  ["GET", "/api/v1/usage", null, 0],
];

export const OPERATIONS: readonly OperationSpec[] = rows.map(([method, path, scope, weight, kind]) => ({
  method,
  path,
  scope,
  weight,
  changesState: kind === "write",
}));

export function operationSpec(method: string, path: string): OperationSpec {
  const spec = OPERATIONS.find((op) => op.method === method && op.path === path);
  if (!spec) throw new Error(`No entry for ${method} ${path} in the operations table (src/platform/quota.ts)`);
  return spec;
}
