// POST /api/v1/platform/dte/intercambios/recepcion_sii/{emisor}/{dte}/{folio}: when the SII
// received a document, asked with the certificate's DTE token.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { documentReception } from "../../services/intercambios.ts";
import { registerDocumentQuery } from "./document-query.ts";
import { Recepcion } from "./schema.ts";

export function registerIntercambiosRecepcionSii(app: OpenAPIHono<AppEnv>): void {
  registerDocumentQuery(app, {
    path: "/api/v1/platform/dte/intercambios/recepcion_sii/{emisor}/{dte}/{folio}",
    access: { scope: "sii:read", weight: 1 },
    summary: "When the SII received a document",
    description:
      "The SII's reception date and time of the document (consultarFechaRecepcionSii), as ISO 8601 with Chile's offset and as the SII wrote it; 404 when the SII has not received it.",
    schema: Recepcion,
    answer: documentReception,
  });
}
