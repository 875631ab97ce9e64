// The headers of the sandbox's RCV CSV files (exports and asynchronous downloads) and the purchase types of their `Tipo Compra`.
/** The purchases header (REGISTRO) as docs/sii-services.md §7.5 and the SII's own files have it. */
export const COMPRAS_COLUMNS =
  "Nro;Tipo Doc;Tipo Compra;RUT Proveedor;Razon Social;Folio;Fecha Docto;Fecha Recepcion;Fecha Acuse;Monto Exento;Monto Neto;Monto IVA Recuperable;Monto Iva No Recuperable;Codigo IVA No Rec.;Monto Total;Monto Neto Activo Fijo;IVA Activo Fijo;IVA uso Comun;Impto. Sin Derecho a Credito;IVA No Retenido;Tabacos Puros;Tabacos Cigarrillos;Tabacos Elaborados;NCE o NDE sobre Fact. de Compra;Codigo Otro Impuesto;Valor Otro Impuesto;Tasa Otro Impuesto";
/** The sales header as the SII's own files have it (43 columns, the other taxes last): test/fixtures/sii/rcv/RCV-venta-*.csv. */
export const VENTAS_COLUMNS =
  "Nro;Tipo Doc;Tipo Venta;Rut cliente;Razon Social;Folio;Fecha Docto;Fecha Recepcion;Fecha Acuse Recibo;Fecha Reclamo;Monto Exento;Monto Neto;Monto IVA;Monto total;IVA Retenido Total;IVA Retenido Parcial;IVA no retenido;IVA propio;IVA Terceros;RUT Emisor Liquid. Factura;Neto Comision Liquid. Factura;Exento Comision Liquid. Factura;IVA Comision Liquid. Factura;IVA fuera de plazo;Tipo Docto. Referencia;Folio Docto. Referencia;Num. Ident. Receptor Extranjero;Nacionalidad Receptor Extranjero;Credito empresa constructora;Impto. Zona Franca (Ley 18211);Garantia Dep. Envases;Indicador Venta sin Costo;Indicador Servicio Periodico;Monto No facturable;Total Monto Periodo;Venta Pasajes Transporte Nacional;Venta Pasajes Transporte Internacional;Numero Interno;Codigo Sucursal;NCE o NDE sobre Fact. de Compra;Codigo Otro Imp.;Valor Otro Imp.;Tasa Otro Imp.";

/** The purchase types (tipoCompra) as the portal lists them (devlas-cl/dte-sii `SiiPortalAuth.js` `obtenerTiposTransaccionCompra`). */
export const TIPOS_COMPRA: Record<number, string> = {
  1: "Del Giro",
  2: "Supermercados",
  3: "Bienes Raíces",
  4: "Activo Fijo",
  5: "IVA Uso Común",
  6: "IVA no Recuperable",
  7: "No Corresp. Incluir",
};

/** Where a purchase's changed type is kept: `rut|periodo|tipo|rut del emisor sin DV|folio`. */
export const tipoCompraKey = (rut: string, periodo: number, tipo: number, emisor: string, folio: number) =>
  `${rut}|${periodo}|${tipo}|${emisor.split("-")[0]}|${folio}`;
