// The folio fields every operation that names a folio or a folio's document type shares (folios,
// documents, exchanges, the folio ledger): a routes' shared module, so no group imports another's schema.
import { z } from "@hono/zod-openapi";
import { IntegerParam } from "../platform/params.ts";

/**
 * Document types the SII stamps folios for: every electronic type (SiiTypes_v10.xsd `DOCType`: 33, 34,
 * 43, 46, 52, 56, 61, 110, 111, 112; the boletas 39 and 41 in EnvioBOLETA), as the SII's stamping page offers them (a `COD_DOCTO` option per type the
 * taxpayer is authorized for, test/fixtures/sii/captured/FACTS.md) and LibreDTE lists them as
 * electronic (libredte-lib-core `resources/data/repository/tipos_documento.php`: 33, 34, 39, 41, 43,
 * 46, 52, 56, 61, 110, 111, 112). The spec's list (33 to 61) is a subset.
 */
export const FOLIO_TYPES = [33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112] as const;

export const DocumentType = IntegerParam({
  min: Math.min(...FOLIO_TYPES),
  max: Math.max(...FOLIO_TYPES),
  values: FOLIO_TYPES,
  noun: "a document type number",
  example: 33,
  description:
    "The document type: 33 invoice, 34 exempt invoice, 39 boleta, 41 exempt boleta, 43 liquidación-factura, 46 purchase invoice, 52 dispatch guide, 56 debit note, 61 credit note, 110 export invoice, 111 export debit note, 112 export credit note",
});

/** The largest folio: ten digits (DTE_v10.xsd FolioType). */
export const MAX_FOLIO = 9_999_999_999;

/** A folio in a path. */
export const Folio = IntegerParam({
  min: 1,
  max: MAX_FOLIO,
  noun: "a folio number",
  example: 101,
  description: "The document's folio number",
});

/** A folio in a JSON body. */
export const FolioNumber = z
  .number({ error: "must be a folio number" })
  .int({ error: "must be a whole number" })
  .min(1, { error: `must be from 1 to ${MAX_FOLIO}` })
  .max(MAX_FOLIO, { error: `must be from 1 to ${MAX_FOLIO}` })
  .register(z.globalRegistry, { description: "The document's folio number", example: 1001 });
