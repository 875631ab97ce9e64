// POST /api/v1/platform/dte/folios/{emisor}/{dte}: adds a CAF to the account's folio ledger after
// reading it as generar does (the SII's signature over the one parsed DA, no comments, no second
// DA or FRMA), checking it was granted to this issuer for this type and overlaps no range held.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { addCaf } from "../../services/folio-ledger.ts";
import { EXAMPLE_CAF } from "../example-documents.ts";
import { AddedEnvelope } from "../folio-ledger-schema.ts";
import { LedgerParams } from "./schema.ts";

/** A CAF file is a few kB; the SII's largest ranges do not make it bigger. */
const CAF_MAX_CHARS = 64 * 1024;

const Body = z
  .object({
    caf: z.string().min(1).max(CAF_MAX_CHARS).register(z.globalRegistry, {
      description: "The CAF file as the SII delivers it (`AUTORIZACION` with its private key), base64 of its bytes (raw XML is read too)",
      example: EXAMPLE_CAF,
    }),
  })
  .strict();

export function registerFolioLedgerPost(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/folios/{emisor}/{dte}",
      tags: ["Folios"],
      summary: "Add a CAF to the account's folio ledger",
      description:
        "Reads the CAF as `documentos/generar` does (the SII's signature over its `DA`, read from the parsed file; a comment, a processing instruction or a second `DA` or `FRMA` is refused) and keeps it for this account, its private key sealed at rest and never answered. A CAF of another issuer or type is a 400 naming the field; a range sharing folios with one already held is a 409 `FOLIOS_OVERLAP` naming that range. Answers the range added and the ledger as `GET` does. Nothing is sent to the SII.",
      request: { params: LedgerParams, body: jsonBody(Body) },
      responses: { 200: jsonContent(AddedEnvelope, "The range added, and what the ledger now holds"), ...errorResponses([400, 409, 422]) },
    }),
    { scope: "sii:write", weight: 1 },
    async (c) => {
      const { emisor, dte } = c.req.valid("param");
      const { caf: file } = c.req.valid("json");
      const added = await addCaf(callerOf(c), emisor, dte, file);
      return ok(c, added, `Folios ${added.rango.desde} to ${added.rango.hasta} added`);
    },
  );
}
