// The schemas the documents and submissions operations share: a document as JSON (its shape as
// validated) and uploaded XML (a DTE, EnvioDTE or EnvioBOLETA as base64).
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

export const XmlField = z.string().min(1, { error: "is required" }).openapi({
  description: "A DTE, EnvioDTE or EnvioBOLETA, base64",
  example:
    "PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0iSVNPLTg4NTktMSI/PjxFbnZpb0RURSB4bWxucz0iaHR0cDovL3d3dy5zaWkuY2wvU2lpRHRlIiB2ZXJzaW9uPSIxLjAiPjxTZXREVEUgSUQ9IlNldERvYyI+Li4uPC9TZXREVEU+PC9FbnZpb0RURT4=",
});

export const ResolucionField = z
  .object({ numero: z.number().int().min(0), fecha: z.iso.date({ error: "must be a date YYYY-MM-DD" }) })
  .optional()
  .openapi({ description: "The SII resolution printed under the stamp; by default the envelope's carátula's" });
