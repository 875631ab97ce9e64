// A document as JSON in request bodies: its shape as validated, and one invoice of the sandbox
// company as the example of every operation that takes one (tests and the benchmark build on it).
import { z } from "@hono/zod-openapi";
import { MAX_DOCUMENT_LINES } from "./batch.ts";

/** A list the engine walks line by line, at most `max` long (or one object where the schema has a list). */
const Lines = (max: number, description: string) =>
  z
    .union([z.record(z.string(), z.unknown()), z.array(z.unknown()).max(max)])
    .optional()
    .openapi({ description });

/** What is checked before the engine sees it: the type and the size of its lists; everything else passes through. */
export const DteJson = z
  .object({
    Encabezado: z.object({ IdDoc: z.object({ TipoDTE: z.coerce.number().int() }).passthrough() }).passthrough(),
    // The SII's schemas: Detalle 1..60 (boletas 1..1000), DscRcgGlobal ≤ 20, Referencia ≤ 40 (DTE_v10.xsd).
    Detalle: Lines(MAX_DOCUMENT_LINES, `The lines: at most ${MAX_DOCUMENT_LINES} (the boleta schema's maximum; other types take 60)`),
    DscRcgGlobal: Lines(20, "Global discounts and surcharges: at most 20"),
    Referencia: Lines(40, "References: at most 40"),
  })
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
