// POST /api/v1/sii/dte/caf/solicitar/{emisor}/{dte}/{cantidad}: stamp a folio range at the SII
// (certificate session) and return it with its CAF file. Irreversible: never retried;
// Idempotency-Key honoured by the operation wrapper.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { isDryRun } from "../../platform/dry-run.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { Ambiente, DryRun, IntegerParam, Rut } from "../../platform/params.ts";
import { previewNote } from "../../platform/preview.ts";
import { envelope, errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { CAF_ESTIMATES, CAF_PLACEHOLDERS, requestCaf } from "../../services/caf.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import { EXAMPLE_PFX } from "../example-credentials.ts";
import { LedgerAdded } from "../folio-ledger-schema.ts";
import { DocumentType, FolioRange, MAX_FOLIOS_PER_REQUEST } from "./schema.ts";

const Params = pathParams({
  emisor: Rut.meta({ description: "The issuer the folios are for (the certificate's holder must be its representative)" }),
  dte: DocumentType,
  cantidad: IntegerParam({
    min: 1,
    max: MAX_FOLIOS_PER_REQUEST,
    noun: "a number of folios",
    example: 10,
    description: `How many folios: 1 to ${MAX_FOLIOS_PER_REQUEST} (the SII grants at most its own MAX_AUTOR for the issuer, usually fewer)`,
  }),
});
export const Granted = envelope(
  FolioRange.extend({
    ledger: LedgerAdded.nullable().optional().meta({
      description: "With `ledger: true`: the folio ledger after adding the range; null when it could not be added (`message` says why)",
    }),
  }).openapi("FolioRange"),
);
const Query = z.object({ ambiente: Ambiente, dry_run: DryRun });
const Body = CertAuthBody.extend({
  ledger: z.boolean().default(false).register(z.globalRegistry, {
    description:
      "Also add the CAF granted to this account's folio ledger (as `POST /api/v1/platform/dte/folios/{emisor}/{dte}` does, sealed), so `documentos/generar` hands its folios out without `caf`",
  }),
}).openapi("FolioRequest", { example: { auth: { cert: EXAMPLE_PFX }, ledger: true } });

export function registerCafSolicitar(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/dte/caf/solicitar/{emisor}/{dte}/{cantidad}",
      tags: ["Folios"],
      summary: "Request a folio range (CAF)",
      description:
        "Logs in with the certificate, stamps `cantidad` folios of type `dte` for `emisor` and returns the range with its CAF file. Irreversible: send an `Idempotency-Key`; the stamping itself is never retried. After it, the file is downloaded again while the SII answers its transient DTE-OFGA (up to 3 more times), else re-obtained through the SII's re-obtaining pages (`reobtenido: true`), as is a range the SII answers was already authorized. If neither gives the file, the 502 says the folios are stamped, names the range (`details.folio_inicial`, `details.folio_final`, `details.estampados: true`) and where to re-obtain it (`details.reobtener_en`): do not request them again. `dry_run` checks everything (the certificate too) without contacting the SII. With `ledger: true` the CAF is also added to this account's folio ledger (`ledger` in the answer, as the ledger's `POST` answers; null, with the reason in `message`, when it could not be added: the folios stay granted and `caf_xml` carries them). " +
        previewNote(CAF_PLACEHOLDERS, CAF_ESTIMATES) +
        " In a preview `folio_inicial` and `folio_final` follow the highest folio this account's ledger holds for the issuer and type (estimates), else are placeholders (1 to `cantidad`).",
      request: { params: Params, query: Query, body: jsonBody(Body) },
      responses: { 200: jsonContent(Granted, "The folios granted"), ...errorResponses([400, 422, 502, 503]) },
    }),
    { scope: "sii:write", weight: 5, write: true },
    async (c) => {
      const { emisor, dte, cantidad } = c.req.valid("param");
      const { ambiente } = c.req.valid("query");
      const body = c.req.valid("json");
      const credential = await parseCertificate(c, body.auth.cert);
      const request = { emisor, tipo: dte, cantidad, ambiente, ledger: body.ledger };
      const { data, message } = await requestCaf(callerOf(c), credential, request, isDryRun(c));
      return ok(c, data, message);
    },
  );
}
