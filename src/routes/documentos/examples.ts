// A document as JSON in request bodies: its shape as validated, and one invoice of the sandbox
// company as the example of every operation that takes one (tests and the benchmark build on it).
import { z } from "@hono/zod-openapi";

/** What is checked before the engine sees it: the type; everything else passes through. */
export const DteJson = z
  .object({ Encabezado: z.object({ IdDoc: z.object({ TipoDTE: z.coerce.number().int() }).passthrough() }).passthrough() })
  .passthrough();

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
