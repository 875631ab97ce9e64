// Facts about the DTE's elements, by tag name, taken from the SII's schemas (DTE_v10.xsd with
// SiiTypes_v10.xsd; EnvioBOLETA_v11.xsd for the boleta-only names). Tag names are unique enough
// in the document part of the schema that one table serves every place a name appears.

/** Text elements and their schema maximum length in characters (`xs:maxLength`). */
export const TEXT_LIMITS: Record<string, number> = {
  // IdDoc
  TpoImpresion: 1,
  TpoCtaPago: 10,
  NumCtaPago: 20,
  BcoPago: 40,
  TermPagoCdg: 4,
  TermPagoGlosa: 100,
  GlosaPagos: 40,
  // Emisor (RznSocEmisor and GiroEmisor are the boleta's names)
  RUTEmisor: 10,
  RznSoc: 100,
  RznSocEmisor: 100,
  GiroEmis: 80,
  GiroEmisor: 80,
  Telefono: 20,
  CorreoEmisor: 80,
  Sucursal: 20,
  CodAdicSucur: 20,
  DirOrigen: 70,
  CmnaOrigen: 20,
  CiudadOrigen: 20,
  CdgVendedor: 60,
  IdAdicEmisor: 20,
  RUTMandante: 10,
  // Receptor
  RUTRecep: 10,
  CdgIntRecep: 20,
  RznSocRecep: 100,
  NumId: 20,
  Nacionalidad: 3,
  IdAdicRecep: 20,
  GiroRecep: 40,
  Contacto: 80,
  CorreoRecep: 80,
  DirRecep: 70,
  CmnaRecep: 20,
  CiudadRecep: 20,
  DirPostal: 70,
  CmnaPostal: 20,
  CiudadPostal: 20,
  RUTSolicita: 10,
  // Transporte and Aduana
  Patente: 8,
  RUTTrans: 10,
  RUTChofer: 10,
  NombreChofer: 30,
  DirDest: 70,
  CmnaDest: 20,
  CiudadDest: 20,
  NombreTransp: 40,
  RUTCiaTransp: 10,
  NomCiaTransp: 40,
  IdAdicTransp: 20,
  Booking: 20,
  Operador: 20,
  IdAdicPtoEmb: 20,
  IdAdicPtoDesemb: 20,
  IdAdicOtr: 20,
  // Totales and OtraMoneda
  TipoImp: 3,
  TpoMoneda: 15,
  TipoImpOtrMnda: 3,
  // Detalle
  TpoCodigo: 10,
  VlrCodigo: 35,
  TpoDocLiq: 3,
  IndAgente: 1,
  NmbItem: 80,
  DscItem: 1000,
  UnmdRef: 4,
  SubCod: 35,
  TipCodSubQty: 10,
  UnmdItem: 4,
  TipoDscto: 1,
  TipoRecargo: 1,
  CodImpAdic: 3,
  // SubTotInfo (80 in the boleta schema, 40 in DTE_v10)
  GlosaSTI: 40,
  // DscRcgGlobal
  TpoMov: 1,
  GlosaDR: 45,
  TpoValor: 1,
  // Referencia (CodVndor and CodCaja are the boleta's)
  TpoDocRef: 3,
  FolioRef: 18,
  RUTOtr: 10,
  RazonRef: 90,
  CodVndor: 8,
  CodCaja: 8,
  // Comisiones
  TipoMovim: 1,
  Glosa: 60,
};

/** Where the boleta schema (EnvioBOLETA_v11.xsd) allows a different length. */
export const BOLETA_TEXT_LIMITS: Record<string, number> = { GlosaSTI: 80, CodRef: 18 };

/** Elements holding a RUT (`[0-9]+-([0-9]|K)`, 3..10 characters). */
export const RUT_FIELDS = new Set([
  "RUTEmisor",
  "RUTMandante",
  "RUTRecep",
  "RUTSolicita",
  "RUTTrans",
  "RUTChofer",
  "RUTCiaTransp",
  "RUTOtr",
]);

/** Elements of the schema's FechaType: a date between 2000-01-01 and 2050-12-31. */
export const DATE_FIELDS = new Set([
  "FchEmis",
  "FchCancel",
  "FchPago",
  "PeriodoDesde",
  "PeriodoHasta",
  "FchVenc",
  "FchAut",
  "FchElabor",
  "FchVencim",
  "FchRef",
]);
export const DATE_RANGE = { min: "2000-01-01", max: "2050-12-31" } as const;

/**
 * Elements whose schema type is a number (integer or decimal). Text read from XML for these
 * becomes a number; the codes `CodImpAdic` and `TipoImp` are `A(3)` in the schema but numeric
 * in practice (and in the normalizer's arithmetic).
 */
export const NUMERIC_FIELDS = new Set(
  (
    "Acteco CantBultos CdgSIISucur CdgTraslado CodClauVenta CodModVenta CodPaisDestin CodPaisRecep CodPtoDesemb " +
    "CodPtoEmbarque CodRef CodTpoBultos CodUnidMedTara CodUnidPesoBruto CodUnidPesoNeto CodViaTransp CredEC " +
    "DctoOtrMnda DescuentoMonto DescuentoPct FctConv FmaPagExp FmaPago Folio FolioAut GrntDep IVA IVANoRet " +
    "IVANoRetOtrMnda IVAOtrMnda IVAProp IVATerc IndExe IndExeDR IndGlobal IndMntNeto IndNoRebaja IndServicio " +
    "IndTraslado ItemEspectaculo LineasDeta MntBase MntBaseFaena MntBruto MntCancel MntExe MntExeOtrMnda " +
    "MntFaeCarneOtrMnda MntFlete MntMargComOtrMnda MntMargComer MntMargenCom MntNeto MntNetoOtrMnda MntPago " +
    "MntSeguro MntTotOtrMnda MntTotal MontoImp MontoItem MontoItemOtrMnda MontoNF MontoPeriodo NroLinCom " +
    "NroLinDR NroLinDet NroLinRef NroSTI OrdenSTI PesoBruto PesoNeto PrcConsFinal PrcItem PrcOtrMon PrcRef " +
    "QtyItem QtyRef RecargoMonto RecargoOtrMnda RecargoPct SaldoAnterior SaldoInsol SubQty SubTotAdicSTI " +
    "SubTotExeSTI SubTotIVASTI SubTotNetoSTI Tara TasaComision TasaIVA TasaImp TasaImpOtrMnda TermPagoDias " +
    "TipoDTE TipoDespacho TotBultos TotClauVenta TotItems TotalPeriodo TpoCambio TpoTranCompra TpoTranVenta " +
    "ValComExe ValComIVA ValComNeto ValSubtotSTI ValorDR ValorDROtrMnda ValorDscto ValorRecargo VlrImpOtrMnda " +
    "VlrPagar CodImpAdic TipoImp"
  ).split(" "),
);

/**
 * Numbers the schema never allows below zero in the document types normalized here (MontoType,
 * Dec12_6Type, percentages, line numbers, folios). `MontoNF`, `MontoPeriodo`, `SaldoAnterior` and
 * `VlrPagar` are signed; so are the amounts of a liquidación-factura (43), which is not one of them.
 */
export const NON_NEGATIVE_FIELDS = new Set(
  (
    "Folio TipoDTE NroLinDet NroLinDR NroLinRef QtyItem PrcItem MontoItem DescuentoPct DescuentoMonto RecargoPct " +
    "RecargoMonto QtyRef PrcRef ValorDR MntNeto MntExe MntBase IVA IVAProp IVATerc MontoImp TasaImp IVANoRet CredEC " +
    "GrntDep MntTotal TasaIVA TpoCambio MntPago MntCancel SaldoInsol"
  ).split(" "),
);

/** Numbers never negative, a liquidación-factura's (43) included: its amounts are signed, these are not. */
export const NEVER_SIGNED = new Set(["Folio", "TipoDTE", "QtyItem", "NroLinDet", "NroLinDR", "NroLinRef"]);
