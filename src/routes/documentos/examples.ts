// One invoice of the sandbox company: the example of every operation that takes a document as
// JSON (tests and the benchmark build on it).

export const EXAMPLE_ISSUER = {
  RUTEmisor: "76192083-9",
  RznSoc: "Comercial Sandbox SpA",
  GiroEmis: "Comercio",
  Acteco: 479100,
  DirOrigen: "Av. Providencia 1234",
  CmnaOrigen: "Providencia",
};

export const EXAMPLE_RECEIVER = {
  RUTRecep: "60803000-K",
  RznSocRecep: "Servicio de Impuestos Internos",
  GiroRecep: "Gobierno",
  DirRecep: "Teatinos 120",
  CmnaRecep: "Santiago",
};

export const EXAMPLE_INVOICE = {
  Encabezado: { IdDoc: { TipoDTE: 33, Folio: 1 }, Emisor: EXAMPLE_ISSUER, Receptor: EXAMPLE_RECEIVER },
  Detalle: [{ NmbItem: "Conectores RJ45", QtyItem: 450, PrcItem: 70 }],
};

/** An invoice of `lines` lines with folio `folio`: the batches the limits and the stall measurements use. */
export const exampleInvoiceOf = (folio: number, lines: number) => ({
  Encabezado: { IdDoc: { TipoDTE: 33, Folio: folio }, Emisor: EXAMPLE_ISSUER, Receptor: EXAMPLE_RECEIVER },
  Detalle: Array.from({ length: lines }, (_, i) => ({ NmbItem: `Artículo ${i + 1}`, QtyItem: 1 + i, PrcItem: 1_000 + i })),
});
