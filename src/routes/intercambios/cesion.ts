// POST /api/v1/platform/dte/intercambios/cesion/{emisor}/{dte}/{folio}: whether a document can be
// assigned, asked of the SII's acceptance/claim service with the certificate's DTE token.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { documentAssignability } from "../../services/intercambios.ts";
import { registerDocumentQuery } from "./document-query.ts";
import { Cesion } from "./schema.ts";

export function registerIntercambiosCesion(app: OpenAPIHono<AppEnv>): void {
  registerDocumentQuery(app, {
    path: "/api/v1/platform/dte/intercambios/cesion/{emisor}/{dte}/{folio}",
    access: { scope: "sii:read", weight: 1 },
    summary: "Whether a document can be assigned",
    description:
      "Asks the SII (consultarDocDteCedible) with the certificate of the issuer or the receiver. `cedible` is true for codes 23 (accepted without claims) and 25 (eight days without claims); 20, 21, 22 and 24 say why not.",
    schema: Cesion,
    answer: documentAssignability,
  });
}
