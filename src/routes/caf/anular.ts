// POST /api/v1/sii/dte/caf/anular/{emisor}/{dte}/{folio_inicial}/{folio_final}: annul unused
// folios at the SII (certificate session). Irreversible: never retried; Idempotency-Key honoured.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { isDryRun } from "../../platform/dry-run.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { Ambiente, DryRun, Rut } from "../../platform/params.ts";
import { previewNote } from "../../platform/preview.ts";
import { errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { ANNUL_ESTIMATES, ANNUL_PLACEHOLDERS, annulCaf } from "../../services/caf.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import { DocumentType, Folio, FolioAnnulmentEnvelope } from "./schema.ts";

const Params = pathParams({
  emisor: Rut.meta({ description: "The issuer the folios were granted to" }),
  dte: DocumentType,
  // Example: unused folios of the range the sandbox company holds in every new sandbox (1–100, 1–10 used).
  folio_inicial: Folio.meta({ description: "First folio to annul", example: 91 }),
  folio_final: Folio.meta({ description: "Last folio to annul (not below `folio_inicial`: a 400 otherwise)", example: 100 }),
  // Two parameters together: no JSON Schema keyword states it, the description does.
}).superRefine(({ folio_inicial, folio_final }, ctx) => {
  if (folio_inicial > folio_final) {
    ctx.addIssue({ code: "custom", path: ["folio_inicial"], message: `${folio_inicial} is greater than folio_final ${folio_final}` });
  }
});
const Query = z.object({ ambiente: Ambiente, dry_run: DryRun });

export function registerCafAnular(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/dte/caf/anular/{emisor}/{dte}/{folio_inicial}/{folio_final}",
      tags: ["Folios"],
      summary: "Annul a range of unused folios",
      description:
        "Only folios not yet used can be annulled (a used one must be annulled as a document). Irreversible: send an `Idempotency-Key`. An unknown range is a 404. The folios of the range this account's folio ledger holds are recorded as annulled there (`anulados_ledger` says how many), so `documentos/generar` never hands them out. " +
        previewNote(ANNUL_PLACEHOLDERS, ANNUL_ESTIMATES),
      request: { params: Params, query: Query, body: jsonBody(CertAuthBody) },
      responses: { 200: jsonContent(FolioAnnulmentEnvelope, "The annulment receipt"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    { scope: "sii:write", weight: 5, write: true },
    async (c) => {
      const { emisor, dte, folio_inicial, folio_final } = c.req.valid("param");
      const { ambiente } = c.req.valid("query");
      const credential = await parseCertificate(c, c.req.valid("json").auth.cert);
      const annulment = { emisor, tipo: dte, desde: folio_inicial, hasta: folio_final, ambiente };
      const { data, message } = await annulCaf(callerOf(c), credential, annulment, isDryRun(c));
      return ok(c, data, message);
    },
  );
}
