// POST /api/v1/platform/dte/envios/enviar: send a signed envelope to the SII. Everything the SII
// would refuse is checked first (readable ISO-8859-1 XML, signatures, carátula against its
// documents, the SII's limits) and answered with 400 before anything leaves. Irreversible: never
// retried; Idempotency-Key honoured; dry_run stops right before the upload.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { CHARGE_BLOCK, CHARGE_BLOCK_LINES, MAX_BATCH_DOCUMENTS, unitsFor } from "../../platform/batch-limits.ts";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { isDryRun } from "../../platform/dry-run.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { Ambiente, DryRun } from "../../platform/params.ts";
import { PreviewMark, previewNote } from "../../platform/preview.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { SEND_PLACEHOLDERS, sendEnvelope } from "../../services/envios.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import { readUploadedBatch } from "../document-batch.ts";
import { EXAMPLE_PFX } from "../example-credentials.ts";
import { EXAMPLE_ENVELOPE } from "../example-documents.ts";
import { Job } from "../job-schema.ts";
import { inspectXmlField, XmlField } from "../uploaded-xml.ts";
import { VERIFY_WEIGHT as CHECK_WEIGHT } from "./schema.ts";

const Query = z.object({ ambiente: Ambiente, dry_run: DryRun });

const Body = z
  .object({
    auth: CertAuthBody.shape.auth,
    xml: XmlField.meta({ description: "The signed EnvioDTE or EnvioBOLETA, base64 (as `documentos/generar` returns it)" }),
    archivo: z
      .string()
      .max(104)
      .regex(/^[\w.-]{1,100}\.xml$/, { error: "must be a file name ending in .xml (letters, digits, . _ -)" })
      .optional()
      .register(z.globalRegistry, { description: "The file name the SII records; default `EnvioDTE_<emisor>_<first folio>.xml`" }),
    seguir: z.boolean({ error: "must be true or false" }).default(false).register(z.globalRegistry, {
      description:
        "true: a job follows the envelope to the SII's verdict (as `POST /api/v1/jobs` does) with the token of this upload, and writes one `dte_envio.processed` or `dte_envio.rejected` event; `seguimiento` is that job",
    }),
  })
  .openapi("SendEnvelopeRequest", { example: { auth: { cert: EXAMPLE_PFX }, xml: EXAMPLE_ENVELOPE } });

export const Sent = envelope(
  z
    .object({
      track_id: z
        .string()
        .nullable()
        .register(z.globalRegistry, { description: "The SII's track id (null in dry_run)", example: "0260003916" }),
      estado: z
        .string()
        .nullable()
        .register(z.globalRegistry, { description: "`REC`: received; follow it with `envios/estado`", example: "REC" }),
      fecha_recepcion: z.string().nullable().register(z.globalRegistry, { format: "date-time" }),
      servicio: z.enum(["dte", "boleta"]).register(z.globalRegistry, {
        description: "Which SII service took it: DTEUpload, or the boleta service (EnvioBOLETA); pass it to `envios/estado`",
      }),
      archivo: z.string(),
      emisor: z.string(),
      documentos: z.array(z.object({ tipo: z.number().int(), folio: z.number().int() })),
      seguimiento: Job.nullable().meta({
        description:
          "With `seguir`: the job following the envelope (null without it, in dry_run, or when the account already has its most live jobs)",
      }),
      vista_previa: PreviewMark,
    })
    .openapi("SentEnvelope"),
);

export function registerEnviosEnviar(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/envios/enviar",
      tags: ["Submissions"],
      summary: "Send an envelope to the SII",
      description: `Uploads an EnvioDTE (DTEUpload, with the DTE token) or an EnvioBOLETA (the boleta REST service, with its own token) with the sender's certificate. The envelope is checked first: readable ISO-8859-1 XML, valid envelope and document signatures, a carátula that agrees with its documents and with the certificate, at most 2000 documents (500 boletas); each problem is a 400 naming its place in the XML (\`errors[].path\` = \`xml:<path>\`). Never retried: send an \`Idempotency-Key\`. The same file again is 409 \`ALREADY_SUBMITTED\` with the earlier track id. Charged 5 units (the operation's weight), and for the checks of an envelope beyond one block what \`envios/verificar\` charges for them: ${CHECK_WEIGHT} units per further started block of ${CHARGE_BLOCK} documents or ${CHARGE_BLOCK_LINES} Detalle lines (2 000 documents: 5 + ${unitsFor(CHECK_WEIGHT, MAX_BATCH_DOCUMENTS) - CHECK_WEIGHT}); a dry_run checks the same at no cost. ${previewNote(SEND_PLACEHOLDERS)}`,
      request: { query: Query, body: jsonBody(Body) },
      responses: { 200: jsonContent(Sent, "The SII received the envelope"), ...errorResponses([400, 422, 502, 503]) },
    }),
    { scope: "sii:write", weight: 5, write: true },
    async (c) => {
      const { ambiente } = c.req.valid("query");
      const body = c.req.valid("json");
      const dryRun = isDryRun(c);
      // Counted and charged before the parse: the checks of every signature are verificar's work, paid as verificar pays it.
      const report = await inspectXmlField(await readUploadedBatch(c, CHECK_WEIGHT, body.xml, !dryRun));
      const readCertificate = () => parseCertificate(c, body.auth.cert);
      const data = await sendEnvelope(callerOf(c), {
        report,
        ambiente,
        archivo: body.archivo,
        readCertificate,
        dryRun,
        follow: body.seguir,
      });
      return dryRun ? ok(c, data, "Preview only (dry_run): the envelope passed every check; nothing was sent to the SII") : ok(c, data);
    },
  );
}
