// POST /api/v1/sii/certificacion/facturas/postular/{contribuyente}: applies the company to the
// certification process (pe_ingrut, pe_datos_empresa, pe_confirma).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { isDryRun } from "../../platform/dry-run.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { DryRun } from "../../platform/params.ts";
import { PreviewMark, previewNote } from "../../platform/preview.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { emailAddress } from "../../platform/validation.ts";
import { APPLY_PLACEHOLDERS, applyCompany } from "../../services/certificacion.ts";
import { APPLICATION_FIELDS } from "../../sii/certificacion.ts";
import { CertAuthBody } from "../credentials.ts";
import { EXAMPLE_PFX } from "../example-credentials.ts";
import { certifying } from "./certifying.ts";
import { Params, TAGS } from "./schema.ts";

/** The document types an application may include: those whose boxes devlas-cl/dte-sii marks on the SII's form. */
const APPLICATION_TYPES = Object.keys(APPLICATION_FIELDS).map(Number);

const ApplyBody = z
  .object({
    auth: CertAuthBody.shape.auth,
    email: emailAddress().meta({
      description: "Contact e-mail between the SII and the company and its administrator (MAIL_SII, MAIL_SUP)",
    }),
    email_intercambio: emailAddress().optional().meta({
      description: "E-mail for exchanges between companies (MAIL_DTE); `email` when absent",
    }),
    software: z
      .string()
      .min(1)
      .max(100)
      .register(z.globalRegistry, { description: "The software's name (NOM_SW, which the SII requires)" }),
    documentos: z
      .array(
        z
          .number()
          .int()
          .refine((t) => APPLICATION_TYPES.includes(t))
          .register(z.globalRegistry, { enum: APPLICATION_TYPES }),
        { error: `must list types among ${APPLICATION_TYPES.join(", ")}` },
      )
      .min(1)
      .default(APPLICATION_TYPES)
      .register(z.globalRegistry, {
        description:
          "Document types to certify: 33, 34, 39, 41, 46, 52, 56, 61 (all by default, as public clients apply; exports and settlement invoices are not offered)",
      }),
  })
  .openapi("CertificationApplication", {
    example: { auth: { cert: EXAMPLE_PFX }, email: "contacto@example.cl", software: "Facturador propio" },
  });

// The example applies for real (in the sandbox: the example certificate is one only it trusts), so
// the operations its links lead to have a company in the process.
const Query = z.object({ dry_run: DryRun.meta({ example: "false" }) });

/** An OpenAPI link to a later operation on the same company. */
const nextStep = (operationId: string, description: string) => ({
  operationId,
  description,
  parameters: { contribuyente: "$response.body#/data/contribuyente" },
});

export function registerCertificacionFacturasPostular(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/certificacion/facturas/postular/{contribuyente}",
      tags: TAGS,
      summary: "Apply the company to the certification process",
      description: `Walks the SII's application (pe_ingrut, pe_datos_empresa, pe_confirma) in the certification environment; the certificate's holder becomes the company's administrator user. A company already applied is 409 \`ALREADY_SUBMITTED\`; a document type the SII's form does not offer is 400. Irreversible: send an \`Idempotency-Key\`; \`dry_run\` checks the certificate only. ${previewNote(APPLY_PLACEHOLDERS)}`,
      request: { params: Params, query: Query, body: jsonBody(ApplyBody) },
      responses: {
        200: {
          ...jsonContent(
            envelope(z.object({ contribuyente: z.string(), postulado: z.boolean(), glosa: z.string(), vista_previa: PreviewMark })),
            "The application was taken",
          ),
          // What a company in the process does next, for the same company.
          links: {
            FacturasTestSet: nextStep("post_sii_certificacion_facturas_solicitar_set", "Request the invoices test set"),
            BoletasTestSet: nextStep("post_sii_certificacion_boletas_solicitar_set", "Request the boletas test set"),
            Progress: nextStep("post_sii_certificacion_postulacion_avance", "Follow each test set's state"),
          },
        },
        ...errorResponses([400, 404, 422, 502, 503]),
      },
    }),
    { scope: "sii:write", weight: 5, write: true },
    async (c) => {
      const { email, email_intercambio, software, documentos } = c.req.valid("json");
      const who = await certifying(c);
      const dryRun = isDryRun(c);
      const form = { email, emailIntercambio: email_intercambio, software, documentos };
      const data = await applyCompany(callerOf(c), who, form, dryRun);
      if (dryRun) return ok(c, data, `Preview only (dry_run): the certificate of ${who.credential.rut} is valid; nothing was sent`);
      return ok(c, data);
    },
  );
}
