// POST /api/v1/platform/dte/documentos/escpos: a signed DTE (or every DTE of an envelope) as an
// ESC/POS receipt for thermal printers: bytes, or base64 in the envelope on Accept: application/json.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { MAX_BATCH_BOLETAS, MAX_BATCH_DOCUMENTS } from "../../platform/batch-limits.ts";
import type { AppEnv } from "../../platform/context.ts";
import { okInPieces } from "../../platform/envelope.ts";
import { contentDispositionHeader, fileAnswer } from "../../platform/file-answer.ts";
import { Base64Value } from "../../platform/json-pieces.ts";
import { registerOperation } from "../../platform/operation.ts";
import { BYTES, envelope, errorResponses, jsonBody } from "../../platform/schemas.ts";
import { renderEscpos } from "../../services/documentos.ts";
import { chargeRule, readUploadedBatch } from "../document-batch.ts";

const WEIGHT = 1;

import { EXAMPLE_ENVELOPE } from "../example-documents.ts";
import { ResolucionField, XmlField } from "./schema.ts";

const Body = z
  .object({
    xml: XmlField.meta({
      description: `A DTE, EnvioDTE or EnvioBOLETA, base64: at most ${MAX_BATCH_DOCUMENTS} documents (an EnvioBOLETA ${MAX_BATCH_BOLETAS}, the SII's maxima)`,
    }),
    papel: z
      .enum(["80mm", "58mm"], { error: "must be 80mm or 58mm" })
      .default("80mm")
      .register(z.globalRegistry, { description: "The roll's width: 80 mm (48 characters a line) or 58 mm (32)" }),
    codepage: z
      .enum(["WPC1252", "PC850", "PC858"], { error: "must be WPC1252, PC850 or PC858" })
      .default("WPC1252")
      .register(z.globalRegistry, { description: "The printer's code page for text (ESC t 16, 2 or 19)" }),
    resolucion: ResolucionField,
  })
  .openapi("EscposRequest", { example: { xml: EXAMPLE_ENVELOPE } });

export const Receipt = envelope(
  z
    .object({
      escpos: z.string().register(z.globalRegistry, { description: "The ESC/POS bytes, base64" }),
      documentos: z.array(z.object({ tipo: z.number().int(), folio: z.number().int() })),
    })
    .openapi("EscposReceipt"),
);

export function registerDocumentosEscpos(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/documentos/escpos",
      tags: ["Documents"],
      summary: "A document as an ESC/POS receipt",
      description: `Text in the chosen code page, the SII's box, lines, totals and references, and the TED as a PDF417 the printer draws (GS ( k, error correction level 5, the TED's exact ISO-8859-1 bytes); then feed and cut. An envelope gives one receipt per document, each cut. ${chargeRule(WEIGHT, true)}`,
      request: { body: jsonBody(Body) },
      responses: {
        200: {
          description:
            "The receipt: ESC/POS bytes to save or send to the printer as they are (an attachment named `DTE-<tipo>-<folio>.prn`, `EnvioDTE-<RUT emisor>-<n>docs.prn` for an envelope of several), or the envelope with base64 on `Accept: application/json`",
          headers: contentDispositionHeader('attachment; filename="DTE-39-101.prn"'),
          content: {
            "application/octet-stream": { schema: BYTES },
            "application/json": { schema: Receipt },
          },
        },
        ...errorResponses([400, 422]),
      },
    }),
    { scope: "sii:read", weight: WEIGHT },
    async (c) => {
      const body = c.req.valid("json");
      const contents = await readUploadedBatch(c, WEIGHT, body.xml);
      const { escpos, documentos, name } = await renderEscpos(contents, body);
      if (/application\/json/i.test(c.req.header("accept") ?? "")) return okInPieces(c, { escpos: new Base64Value(escpos), documentos });
      return fileAnswer(c, escpos, { type: "application/octet-stream", disposition: "attachment", name });
    },
  );
}
