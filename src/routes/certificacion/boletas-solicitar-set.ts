// POST /api/v1/sii/certificacion/boletas/solicitar_set/{contribuyente}: the boletas test set
// (the SII's GWT-RPC application, as devlas-cl/dte-sii drives it), as text and parsed into cases.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { isDryRun } from "../../platform/dry-run.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { previewNote } from "../../platform/preview.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { emailAddress } from "../../platform/validation.ts";
import { boletaTestSet, TEST_SET_PLACEHOLDERS } from "../../services/certificacion.ts";
import { CertAuthBody } from "../credentials.ts";
import { certifying } from "./certifying.ts";
import { Params, TAGS, TestSets, WriteQuery } from "./schema.ts";

const BoletaSetBody = CertAuthBody.extend({
  email: emailAddress().optional().meta({
    description: "The software provider's e-mail the SII records with the set (mailProvSw)",
  }),
}).openapi("CertificationBoletaSetRequest");

export function registerCertificacionBoletasSolicitarSet(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/certificacion/boletas/solicitar_set/{contribuyente}",
      tags: TAGS,
      summary: "Request the boletas test set",
      description: `The boleta test set from the SII's boleta certification application (certBolElectDteInternet, GWT-RPC): the company's representatives, its application, then the set file (DownloadFileServlet), as public clients drive it. A company that did not apply for boletas is 404. Each case is a boleta (type 39) to send with \`RazonRef\` = \`CASO-<caso>\`. ${previewNote(TEST_SET_PLACEHOLDERS)}`,
      request: { params: Params, query: WriteQuery, body: jsonBody(BoletaSetBody) },
      responses: { 200: jsonContent(TestSets, "The test set"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    { scope: "sii:write", weight: 5, write: true },
    async (c) => {
      const dryRun = isDryRun(c);
      const data = await boletaTestSet(callerOf(c), await certifying(c), c.req.valid("json").email, dryRun);
      return dryRun ? ok(c, data, "Preview only (dry_run): nothing was requested") : ok(c, data);
    },
  );
}
