// POST /api/v1/platform/dte/formatos/json: a document given as JSON with the SII's tag names, or
// an existing DTE XML (a lone DTE or an EnvioDTE/EnvioBOLETA, base64), returned normalized
// (defaults, line amounts, discounts, taxes, IVA, totals, sanitized text, canonical RUTs) with
// the list of what was filled in or changed. Nothing is sent anywhere.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { SUPPORTED_TYPES } from "../../dte/normalize/normalize.ts";
import { MAX_BATCH_BOLETAS, MAX_BATCH_DOCUMENTS, MAX_BATCH_LINES } from "../../platform/batch-limits.ts";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok, okInPieces } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { MAX_CHARS } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { businessRule } from "../../platform/validation.ts";
import { normalizeDocument, normalizeUpload } from "../../services/documentos.ts";
import { chargeRule, readUploadedBatch } from "../document-batch.ts";

const WEIGHT = 1;

import { EXAMPLE_ENVELOPE, EXAMPLE_INVOICE } from "../example-documents.ts";
import { BASE64, dteJson, TRANSFER_RULE_TEXT } from "./schema.ts";

const Body = z
  .object({
    dte: dteJson(SUPPORTED_TYPES).optional().meta({
      description:
        "The document with the SII's tag names (`Encabezado`, `Detalle`, `DscRcgGlobal`, `Referencia`, …); single objects are accepted where lists are expected. Give this or `xml`, not both.",
    }),
    xml: z
      .string()
      .min(1, { error: "is empty" })
      .max(MAX_CHARS.xml)
      .optional()
      .register(z.globalRegistry, {
        ...BASE64,
        description: `Instead of \`dte\`: an existing DTE XML, base64 of its bytes (ISO-8859-1 or UTF-8, as its declaration says): a \`DTE\`, or an \`EnvioDTE\`/\`EnvioBOLETA\` with one or more (at most ${MAX_BATCH_DOCUMENTS}, an EnvioBOLETA ${MAX_BATCH_BOLETAS}, with ${MAX_BATCH_LINES} Detalle lines in all). Its \`TED\`, \`TmstFirma\` and signature are dropped. The answer is then a list (\`data.documentos\`).`,
        example: EXAMPLE_ENVELOPE,
      }),
  })
  // Exactly one of the two (a business rule: 400 naming both); the document says it with oneOf.
  .superRefine((body, ctx) => {
    if ((body.dte === undefined) !== (body.xml === undefined)) return;
    const message = body.dte === undefined ? "give one of dte or xml" : "give only one of dte or xml, not both";
    for (const path of ["dte", "xml"]) ctx.addIssue({ code: "custom", path: [path], ...businessRule(message) });
  })
  .openapi("NormalizeRequest", {
    oneOf: [
      { required: ["dte"], properties: { dte: {} } },
      { required: ["xml"], properties: { xml: {} } },
    ],
    example: { dte: EXAMPLE_INVOICE },
  });

const NormalizedDte = z
  .record(z.string(), z.unknown())
  .register(z.globalRegistry, { description: "The normalized document (lists always as arrays)" });
const Warnings = z.array(z.string()).register(z.globalRegistry, {
  description: "Each field filled in, computed, cleaned, cut or removed, as `path = value` or a sentence naming the path",
});

const FromJson = z.object({ dte: NormalizedDte, warnings: Warnings }).openapi("NormalizedDte", { description: "Answer to a `dte` input" });

const FromXml = z
  .object({
    sobre: z
      .enum(["DTE", "EnvioDTE", "EnvioBOLETA"])
      .register(z.globalRegistry, { description: "What the XML was: a lone DTE or an envelope" }),
    documentos: z
      .array(
        z.object({
          tipo: z.number().int().register(z.globalRegistry, { example: 33 }),
          folio: z.number().int().nullable().register(z.globalRegistry, { example: 60 }),
          dte: NormalizedDte,
          warnings: Warnings,
        }),
      )
      .register(z.globalRegistry, { description: "One entry per DTE, in document order; error paths name them as `xml.documentos[i]`" }),
  })
  .openapi("NormalizedDteList", { description: "Answer to an `xml` input: always a list, one entry for a lone DTE" });

export const Normalized = envelope(z.union([FromJson, FromXml]));

export function registerDocumentosFormatosJson(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/formatos/json",
      tags: ["Documents"],
      summary: "Normalize a document (JSON or an existing XML) to the standard format",
      description: `Fills in what the SII's rules let be computed (defaults, line amounts, discounts and surcharges, taxes, IVA, totals), cleans text to the SII's character set and lengths, and writes RUTs canonically, listing each change in \`warnings\`. Give \`dte\` (JSON with the SII's tag names) or \`xml\` (an existing DTE or envelope, base64), not both. A value that cannot be fixed (a wrong RUT check digit, an impossible date) is a 400 naming its field. ${TRANSFER_RULE_TEXT} Nothing is signed, sent or stored. A \`dte\` costs the weight; an \`xml\`: ${chargeRule(WEIGHT, true)}`,
      request: { body: jsonBody(Body) },
      responses: {
        200: jsonContent(Normalized, "The normalized document (`dte` input) or documents (`xml` input)"),
        ...errorResponses([400, 422]),
      },
    }),
    { scope: "sii:read", weight: WEIGHT },
    async (c) => {
      const body = c.req.valid("json");
      if (body.dte !== undefined) return ok(c, normalizeDocument(callerOf(c), body.dte));
      return okInPieces(c, await normalizeUpload(callerOf(c), await readUploadedBatch(c, WEIGHT, body.xml ?? "")));
    },
  );
}
