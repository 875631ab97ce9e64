// The RCV facade (www4): summaries, details, the asynchronous download, the writes.
import { getCtrlAsync, getDetalle, getDetalleExport, getResumen, obtenerArchivoBlob } from "../rcv.ts";
import { cambiaTipoCompra, eliminarResumen, ingresarBoletasDiarias, ingresarResumen, obtieneListaBoletasMes } from "../rcv-writes.ts";
import type { RouteKit } from "./kit.ts";

export function registerRcvRoutes({ app, service, state, now }: RouteKit): void {
  // The RCV facade (www4).
  app.post(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/getResumen",
    service("rcv_resumen", (c) => getResumen(c, state, now())),
  );
  app.post(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/getDetalleCompra",
    service("rcv_detalle", (c) => getDetalle(c, state, now(), "COMPRA")),
  );
  app.post(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/getDetalleVenta",
    service("rcv_detalle", (c) => getDetalle(c, state, now(), "VENTA")),
  );
  // The purchase type change (public: devlas-cl/dte-sii SiiPortalAuth.js cambiarTipoCompra).
  app.post(
    "/:host{www4\\.sii\\.cl}/complementoscvui/services/data/facadeServiceCompCompraService/cambiaTipoCompra",
    service("rcv_write", (c) => cambiaTipoCompra(c, state, now())),
  );
  // The daily receipts: the read is public, the write inferred (see src/sii/rcv-inferred.ts).
  app.post(
    "/:host{www4\\.sii\\.cl}/complementoscvui/services/data/facadeServiceBoletasDiarias/obtieneListaBoletasMes",
    service("rcv_boletas", (c) => obtieneListaBoletasMes(c, state, now())),
  );
  app.post(
    "/:host{www4\\.sii\\.cl}/complementoscvui/services/data/facadeServiceBoletasDiarias/ingresarDetalleBoletasDiarias",
    service("rcv_write", (c) => ingresarBoletasDiarias(c, state, now())),
  );
  // The sales summaries (inferred contract, see src/sii/rcv-inferred.ts).
  for (const [method, handler] of [
    ["ingresarResumenVenta", ingresarResumen],
    ["eliminarResumenVenta", eliminarResumen],
  ] as const) {
    app.post(
      `/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/${method}`,
      service("rcv_write", (c) => handler(c, state, now())),
    );
  }
  app.post(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/getCtrlAsync",
    service("rcv_async", (c) => getCtrlAsync(c, state, now())),
  );
  app.get(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/obtenerArchivoBLOB/:blob/:rutUsuario/:rutEmisor/:caId",
    service("rcv_blob", (c) => obtenerArchivoBlob(c, state, now())),
  );
  app.post(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/getDetalleCompraExport",
    service("rcv_export", (c) => getDetalleExport(c, state, now(), "COMPRA")),
  );
  app.post(
    "/:host{www4\\.sii\\.cl}/consdcvinternetui/services/data/facadeService/getDetalleVentaExport",
    service("rcv_export", (c) => getDetalleExport(c, state, now(), "VENTA")),
  );
}
