import { z } from "@hono/zod-openapi";
import { PreviewMark } from "../../platform/preview.ts";
import { envelope } from "../../platform/schemas.ts";

// The folio fields the documents, exchanges and ledger operations share: src/routes/folio-fields.ts.
export { DocumentType, FOLIO_TYPES, Folio, FolioNumber, MAX_FOLIO } from "../folio-fields.ts";

/** Folios one request may ask for; the SII's own MAX_AUTOR (usually lower) is checked too. */
export const MAX_FOLIOS_PER_REQUEST = 10_000;

/** A range granted; `caf/solicitar` names it in the document, with its ledger field. */
export const FolioRange = z.object({
  folio_inicial: z.number().int(),
  folio_final: z.number().int(),
  fecha_autorizacion: z.string().register(z.globalRegistry, { format: "date", example: "2026-11-22" }),
  cantidad: z.number().int(),
  reobtenido: z.boolean().register(z.globalRegistry, {
    description:
      "True when the file came from the SII's re-obtaining pages: the download after stamping failed, the stamping's answer was lost, or the SII answered that the range was already authorized (the range is the one the SII names)",
  }),
  caf_xml: z
    .string()
    .register(z.globalRegistry, { description: "The CAF file (AUTORIZACION XML, ISO-8859-1), base64: what documents are stamped with" }),
  vista_previa: PreviewMark,
});

export const FolioAnnulment = z
  .object({
    glosa: z.string().register(z.globalRegistry, { description: "The SII's annulment receipt text" }),
    folios_anulados: z.number().int(),
    anulados_ledger: z.number().int().register(z.globalRegistry, {
      description: "Folios of the range this account's folio ledger held that it now records as annulled (0 when it holds none)",
    }),
    vista_previa: PreviewMark,
  })
  .openapi("FolioAnnulment");

export const FolioAnnulmentEnvelope = envelope(FolioAnnulment);
