// What the document operations share beyond the request's uploaded XML (read through the routes'
// shared module src/routes/uploaded-xml.ts): the resolution printed on a document.
import type { z } from "@hono/zod-openapi";
import type { EnvelopeContents } from "../../dte/verify/envelope.ts";
import type { ResolucionField } from "./schema.ts";

/** The resolution to print: the request's, or the envelope carátula's. */
export function resolucionOf(requested: z.output<typeof ResolucionField>, contents: Pick<EnvelopeContents, "caratula">) {
  const caratula = contents.caratula;
  return requested ?? (caratula?.fecha_resolucion ? { numero: caratula.numero_resolucion, fecha: caratula.fecha_resolucion } : null);
}
