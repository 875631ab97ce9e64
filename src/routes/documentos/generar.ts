// POST /api/v1/platform/dte/documentos/generar: documents as JSON (the SII's tag names) → signed DTEs
// with their TED, and the signed EnvioDTE / EnvioBOLETA that `envios/enviar` sends. Nothing is sent
// to the SII; the certificate and the CAFs sent are used for this request only, never stored. Without
// `caf`, the folios and their CAFs come from the account's ledger. What it does is the service's
// (src/services/documentos-generar.ts); the route reads the body, its documents and the certificate.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { assertShallow } from "../../dte/normalize/normalize.ts";
import { checkDocumentCount, checkLineCount } from "../../platform/batch-limits.ts";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { okStream } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { errorResponses, headerRefs, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { generarDocumentos } from "../../services/documentos-generar.ts";
import { parseCertificate } from "../credentials.ts";
import { batchYielder, chargeRule } from "../document-batch.ts";
import { validDocuments } from "./generar-input.ts";
import { DteJson, Generated, GenerateRequest, TRANSFER_RULE_TEXT } from "./schema.ts";

// The answer's schema, which the tests read answers with.
export { Generated };

const WEIGHT = 2;

export function registerDocumentosGenerar(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/documentos/generar",
      tags: ["Documents"],
      summary: "Generate signed documents and their envelope",
      description: `Normalizes each document (unless \`normalizar\` is false), checks its CAF (signed by the SII for its IDK, folio in range, same issuer, not expired: six months for types 33, 43, 46, 56 and 61), stamps the TED with the CAF's key, signs each DTE and the envelope with the certificate. Every problem is a 400 naming its field, before anything is signed (and then nothing is charged). ${TRANSFER_RULE_TEXT} (With \`normalizar: false\` too.) Nothing is sent to the SII. Without \`caf\`, the folios come from the account's folio ledger (\`POST /api/v1/platform/dte/folios/{emisor}/{dte}\`): a document without \`Folio\` gets the next free one of its issuer and type, atomically (never twice, also under concurrent calls); a 404 when the account holds no ledger of the type, a 409 \`FOLIOS_EXHAUSTED\` when too few folios are left in ranges not expired. A document naming its \`Folio\` must name a free folio of the ledger when the account holds one of its type, with or without \`caf\` (else a 409 \`FOLIO_UNAVAILABLE\` naming it). \`folios_ledger\` says which folios of the ledger were used and \`X-Folios-Remaining\` how many are left; a request refused or stopped gives the folios it took back (\`details.folios_liberados\` on a 500), and a folio that appeared in an answer is never handed out again. With an \`Idempotency-Key\`, a retry of the same request gets the stored answer byte for byte (\`Idempotent-Replayed: true\`, not charged, nothing signed again), the same key with another request a 409 \`IDEMPOTENCY_CONFLICT\`, and a retry while the first still runs waits for it. ${chargeRule(WEIGHT, true)} Should signing stop half-way (a 500), only the blocks begun are charged, and \`details\` lists the documents signed (\`firmados\`), the one that failed and why (\`fallido\`), and \`unidades_cobradas\`.`,
      request: { body: jsonBody(GenerateRequest) },
      responses: {
        200: {
          ...jsonContent(Generated, "The signed documents and envelope"),
          headers: headerRefs(["X-Folios-Remaining", "X-Folios-Low"]),
        },
        ...errorResponses([400, 404, 409, 422]),
      },
    }),
    // A write like every other, though it reaches no SII: its folios are taken once, so its answer is kept for retries.
    { scope: "sii:write", weight: WEIGHT, write: true },
    async (c) => {
      const body = c.req.valid("json");
      const pause = batchYielder();
      // Counted before any is checked, so the 400 names the limit and the count.
      checkDocumentCount("dte", Array.isArray(body.dte) ? body.dte.length : 1);
      const documents = await validDocuments(c, DteJson, body, pause);
      const lines = checkLineCount("dte", documents);
      for (const [i, document] of documents.entries()) assertShallow(document, Array.isArray(body.dte) ? `dte[${i}]` : "dte");
      const signer = await parseCertificate(c, body.auth.cert);
      const { data, ledger } = await generarDocumentos(callerOf(c), {
        documents,
        lines,
        signer,
        caf: body.caf,
        resolucion: body.resolucion,
        normalizar: body.normalizar,
        receptorEnvio: body.receptor_envio,
        idempotent: c.get("idempotent"),
        requestId: c.get("requestId"),
        pause,
        weight: WEIGHT,
      });
      // The fewest folios left of the types used, and whether a type used is at or below its threshold.
      if (ledger) {
        c.header("X-Folios-Remaining", String(Math.min(...ledger.map((u) => u.disponibles))));
        if (ledger.some((u) => u.bajo_umbral)) c.header("X-Folios-Low", "true");
      }
      return okStream(c, data);
    },
  );
}
