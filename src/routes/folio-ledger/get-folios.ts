// GET /api/v1/platform/dte/folios/{emisor}/{dte}: the account's folio ledger of one issuer and type.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { readLedger } from "../../services/folio-ledger.ts";
import { LedgerEnvelope } from "../folio-ledger-schema.ts";
import { LedgerParams } from "./schema.ts";

export function registerFolioLedgerGet(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/platform/dte/folios/{emisor}/{dte}",
      tags: ["Folios"],
      summary: "The account's folio ledger of an issuer and type",
      description:
        "The CAF ranges this account added for `emisor` and `dte`, each with its folios used, annulled and available and its expiry (`vence`: six months after the authorization for types 33, 43, 46, 56 and 61, as the SII rules; never for the others, docs/dte-engine.md §2.3), the folio handed out next and how many are available in the ranges not expired. With a threshold set (`PUT …/umbral`), `bajo_umbral` flags the ledger and each range when the type's available folios are at or below it; `por_vencer` flags a range not yet expired whose `vence` is within 30 days. A 404 when the account holds none of this issuer and type (another account's ranges are never seen). Nothing is sent to the SII.",
      request: { params: LedgerParams },
      responses: { 200: jsonContent(LedgerEnvelope, "The ledger"), ...errorResponses([404]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      const { emisor, dte } = c.req.valid("param");
      const { deps, account } = callerOf(c);
      const { ranges, view } = await readLedger(deps, account(), emisor, dte);
      if (ranges.length === 0) {
        throw new ApiError(404, "HTTP_404", `This account holds no folios of type ${dte} for ${emisor}: add a CAF with POST first`);
      }
      return ok(c, view, `${view.disponibles} folios available`);
    },
  );
}
