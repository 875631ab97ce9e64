// PUT /api/v1/platform/dte/folios/{emisor}/{dte}/umbral: the account's low-folio threshold of one
// issuer and type, kept in the same ledger document as its ranges (so every store keeps it as it
// keeps them). generar answers X-Folios-Low and GET flags bajo_umbral once the type is at or below it.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { setLedgerThreshold } from "../../services/folio-ledger.ts";
import { LedgerEnvelope } from "../folio-ledger-schema.ts";
import { LedgerParams } from "./schema.ts";

/** Above any range the SII grants in one CAF request; bounds what a caller can store. */
const UMBRAL_MAX = 1_000_000;

const Body = z
  .object({
    umbral: z.number().int().min(0).max(UMBRAL_MAX).nullable().register(z.globalRegistry, {
      description: "Warn when this many folios or fewer are left for the issuer and type; null removes the threshold",
      example: 50,
    }),
  })
  .strict();

export function registerFolioLedgerThreshold(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "put",
      path: "/api/v1/platform/dte/folios/{emisor}/{dte}/umbral",
      tags: ["Folios"],
      summary: "Set the low-folio threshold of an issuer and type",
      description:
        "Keeps `umbral` with the account's folio ledger of `emisor` and `dte` (it may be set before any CAF is added). Once the folios available in ranges not expired are at or below it, `documentos/generar` answers that take folios of the type carry `X-Folios-Low: true` and the ledger's `GET` flags `bajo_umbral`. `null` removes it. Answers the ledger as `GET` does. Nothing is sent to the SII.",
      request: { params: LedgerParams, body: jsonBody(Body) },
      responses: { 200: jsonContent(LedgerEnvelope, "The ledger with its threshold"), ...errorResponses([400, 422]) },
    }),
    { scope: "sii:write", weight: 1 },
    async (c) => {
      const { emisor, dte } = c.req.valid("param");
      const { umbral } = c.req.valid("json");
      const view = await setLedgerThreshold(callerOf(c), emisor, dte, umbral);
      return ok(c, view, umbral === null ? "Threshold removed" : `Threshold set to ${umbral}: ${view.disponibles} folios available`);
    },
  );
}
