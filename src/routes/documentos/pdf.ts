// POST /api/v1/platform/dte/documentos/pdf: the printed representation of a signed DTE (or of
// every DTE of an envelope): PDF bytes, or base64 in the envelope on Accept: application/json.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { MAX_BATCH_BOLETAS, MAX_BATCH_DOCUMENTS, MAX_PRINTED_COPIES, unitsFor } from "../../platform/batch-limits.ts";
import type { AppEnv } from "../../platform/context.ts";
import { okInPieces } from "../../platform/envelope.ts";
import { contentDispositionHeader, fileAnswer } from "../../platform/file-answer.ts";
import { Base64Value } from "../../platform/json-pieces.ts";
import { registerOperation } from "../../platform/operation.ts";
import { MAX_CHARS } from "../../platform/params.ts";
import { BYTES, envelope, errorResponses, jsonBody } from "../../platform/schemas.ts";
import { renderPdf } from "../../services/documentos.ts";
import { chargeRule, readUploadedBatch } from "../document-batch.ts";

const WEIGHT = 2;

import { EXAMPLE_ENVELOPE } from "../example-documents.ts";
import { BASE64, ResolucionField, XmlField } from "./schema.ts";

const Body = z
  .object({
    xml: XmlField.meta({
      description: `A DTE, EnvioDTE or EnvioBOLETA, base64: at most ${MAX_BATCH_DOCUMENTS} documents (an EnvioBOLETA ${MAX_BATCH_BOLETAS}, the SII's maxima), and at most ${MAX_PRINTED_COPIES} pages in all (documents × copies, the cedible copy counting as one)`,
    }),
    papel: z
      .enum(["carta", "80mm"], { error: "must be carta or 80mm" })
      .default("carta")
      .register(z.globalRegistry, { description: "Letter paper (`carta`, 216 × 279 mm) or an 80 mm roll" }),
    cedible: z
      .boolean()
      .default(false)
      .register(z.globalRegistry, { description: "Add the cedible copy with the receipt box of Ley 19.983 (types that may be assigned)" }),
    copias: z.number().int().min(1).max(5).default(1).register(z.globalRegistry, { description: "Tax copies of each document" }),
    logo: z
      .string()
      .max(MAX_CHARS.image)
      .optional()
      .register(z.globalRegistry, {
        ...BASE64,
        // The bytes the image reader checks first (src/dte/render/image.ts), in base64: FF D8 (JPEG) is `/9` and a
        // character from g to j, 89 50 4E 47 (PNG) is `iVBOR` and one from w to /.
        pattern: "^\\s*(?:/9[g-j]|iVBOR[w-z0-9+/])[A-Za-z0-9+/\\s]*={0,2}\\s*$",
        description: "A JPEG or PNG (without transparency), base64; the server reads the image itself (a 400 naming `logo` when it cannot)",
      }),
    oficina_sii: z.string().max(60).optional().register(z.globalRegistry, {
      description:
        "The issuer's SII office (Dirección Regional or Unidad) printed under the red box as `S.I.I. - <oficina>`. Required for a complete printout: without it (or blank) the answer is 400 naming `oficina_sii`, since the gateway holds no taxpayer data that says it",
      example: "PROVIDENCIA",
    }),
    resolucion: ResolucionField,
  })
  .openapi("PdfRequest", { example: { xml: EXAMPLE_ENVELOPE, oficina_sii: "PROVIDENCIA" } });

export const Rendered = envelope(
  z
    .object({
      pdf: z.string().register(z.globalRegistry, { description: "The PDF, base64" }),
      documentos: z.array(z.object({ tipo: z.number().int(), folio: z.number().int() })),
    })
    .openapi("RenderedPdf"),
);

export function registerDocumentosPdf(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/documentos/pdf",
      tags: ["Documents"],
      summary: "A document's printed representation as PDF",
      description: `Issuer and receiver, the SII's red box (RUT, type, folio, office), lines, totals, references, the TED as a PDF417 (error correction level 5) with its legend and resolution, and the cedible copy when asked. Letter paper or an 80 mm roll. ${chargeRule(WEIGHT, true)} Every page is drawn with its document's lines, so each printed copy counts as a document: the documents and their lines are counted once per copy (\`copias\`, and one more with \`cedible\`, for every document as the page limit counts them): 50 documents of 1 000 lines with 5 copies and the cedible one are 300 documents and 300 000 lines, ${unitsFor(WEIGHT, 300, 300_000)} units; these units must be left before the XML is parsed or drawn (else 429 \`QUOTA_EXCEEDED\`).`,
      request: { body: jsonBody(Body) },
      responses: {
        200: {
          description:
            "The PDF (shown inline, named `DTE-<tipo>-<folio>.pdf` for one document, `EnvioDTE-<RUT emisor>-<n>docs.pdf` or `EnvioBOLETA-…` for an envelope of several), or the envelope with base64 on `Accept: application/json`",
          headers: contentDispositionHeader('inline; filename="DTE-33-101.pdf"'),
          content: { "application/pdf": { schema: BYTES }, "application/json": { schema: Rendered } },
        },
        ...errorResponses([400, 422]),
      },
    }),
    { scope: "sii:read", weight: WEIGHT },
    async (c) => {
      const body = c.req.valid("json");
      // Every page draws its document's lines again: each copy is charged as a document of its own.
      const contents = await readUploadedBatch(c, WEIGHT, body.xml, true, body.copias + (body.cedible ? 1 : 0));
      const { pdf, documentos, name } = await renderPdf(contents, body);
      if (/application\/json/i.test(c.req.header("accept") ?? "")) return okInPieces(c, { pdf: new Base64Value(pdf), documentos });
      return fileAnswer(c, pdf, { type: "application/pdf", disposition: "inline", name });
    },
  );
}
