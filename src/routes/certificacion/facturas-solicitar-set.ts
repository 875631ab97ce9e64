// POST /api/v1/sii/certificacion/facturas/solicitar_set/{contribuyente}: a new invoices test set
// (maullin's CGIs), as text and parsed into cases.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { isDryRun } from "../../platform/dry-run.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { previewNote } from "../../platform/preview.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { invoiceTestSet, TEST_SET_PLACEHOLDERS } from "../../services/certificacion.ts";
import { DEFAULT_OPTIONAL_SETS } from "../../sii/certificacion.ts";
import { CertAuthBody } from "../credentials.ts";
import { certifying } from "./certifying.ts";
import { Params, TAGS, TestSets, WriteQuery } from "./schema.ts";

const SetBody = CertAuthBody.extend({
  sets: z
    .array(
      z
        .string()
        .max(5)
        .regex(/^SET\d{2}$/, "must be a set's box on the SII's page, SETnn"),
    )
    .default(DEFAULT_OPTIONAL_SETS)
    .register(z.globalRegistry, {
      description:
        "Optional sets to include besides the basic one (SET01), by their box on the SII's page (SET03 dispatch guides, SET06 exempt invoices, SET07/SET08/SET09/SET15 books, SET72 purchase invoices, …); the ones the page does not offer are left out",
    }),
}).openapi("CertificationSetRequest");

export function registerCertificacionFacturasSolicitarSet(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/certificacion/facturas/solicitar_set/{contribuyente}",
      tags: TAGS,
      summary: "Request the invoices test set",
      description: `A new test set for a company in the process (pe_generar1 with the company, then pe_generar2 with the sets chosen): the SII's text and its cases, ready to issue with \`documentos/generar\`. Each request makes a new set at the SII: send an \`Idempotency-Key\`. ${previewNote(TEST_SET_PLACEHOLDERS)}`,
      request: { params: Params, query: WriteQuery, body: jsonBody(SetBody) },
      responses: { 200: jsonContent(TestSets, "The test set"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    { scope: "sii:write", weight: 5, write: true },
    async (c) => {
      const dryRun = isDryRun(c);
      const data = await invoiceTestSet(callerOf(c), await certifying(c), c.req.valid("json").sets, dryRun);
      return dryRun ? ok(c, data, "Preview only (dry_run): nothing was requested") : ok(c, data);
    },
  );
}
