// POST /api/v1/platform/dte/intercambios/eventos/{emisor}/{dte}/{folio}: a document's event
// history at the SII, asked with the certificate's DTE token.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { documentEvents } from "../../services/intercambios.ts";
import { registerDocumentQuery } from "./document-query.ts";
import { Eventos } from "./schema.ts";

export function registerIntercambiosEventos(app: OpenAPIHono<AppEnv>): void {
  registerDocumentQuery(app, {
    path: "/api/v1/platform/dte/intercambios/eventos/{emisor}/{dte}/{folio}",
    access: { scope: "sii:read", weight: 2 },
    summary: "Event history of a document",
    description:
      "The acceptance, claim and receipt events the SII has for the document (listarEventosHistDoc), oldest first; an empty list when it has none (code 16).",
    schema: Eventos,
    answer: documentEvents,
  });
}
