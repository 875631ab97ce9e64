// POST /api/v1/platform/dte/documentos/generar: documents as JSON (the SII's tag names) → signed DTEs
// with their TED, and the signed EnvioDTE / EnvioBOLETA that `envios/enviar` sends. Nothing is sent
// to the SII; the certificate and the CAFs sent are used for this request only, never stored. Without
// `caf`, the folios and their CAFs come from the account's ledger (src/services/folio-allocation.ts).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { callerSignerWarnings } from "../../certificates/signer-profile.ts";
import { GENERATED_TYPES, type GeneratedParts, GenerationStopped, generateDocumentParts, SII_RUT } from "../../dte/generate/generate.ts";
import { assertShallow } from "../../dte/normalize/normalize.ts";
import { callerOf } from "../../platform/caller.ts";
import { settleCharge } from "../../platform/charge.ts";
import type { AppEnv } from "../../platform/context.ts";
import { okStream } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { LEASE_MS } from "../../platform/idempotency.ts";
import { registerOperation } from "../../platform/operation.ts";
import { MAX_CHARS, Rut } from "../../platform/params.ts";
import { envelope, errorResponses, headerRefs, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { trustedCafKeys } from "../../services/caf-keys.ts";
import {
  giveBack,
  holdFor,
  type LedgerTake,
  type LedgerUse,
  type Released,
  remaining,
  settleTake,
  type Taker,
  takeLedgerFolios,
} from "../../services/folio-allocation.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import {
  batchYielder,
  chargeDocuments,
  chargeRule,
  checkDocumentCount,
  checkLineCount,
  MAX_BATCH_BOLETAS,
  MAX_BATCH_DOCUMENTS,
  MAX_BATCH_LINES,
  unitsFor,
} from "../document-batch.ts";
import { EXAMPLE_PFX } from "../example-credentials.ts";
import { EXAMPLE_CAF, EXAMPLE_EXEMPT_INVOICE } from "../example-documents.ts";
import { LooseDocument, validDocuments } from "./generar-input.ts";
import { BASE64_PATTERN, dteJson } from "./schema.ts";

const DteJson = dteJson(GENERATED_TYPES, true).openapi("DocumentToSign");
const WEIGHT = 2;
/** CAF files per request: one per type of the 20 an EnvioDTE may carry, or a type's ranges (MAX_AUTOR folios each). */
const MAX_CAFS = 40;

const AS_GIVEN = {
  type: "object",
  required: ["Encabezado"],
  properties: {
    Encabezado: {
      type: "object",
      required: ["IdDoc", "Totales"],
      properties: {
        IdDoc: { type: "object", required: ["FchEmis"], properties: { FchEmis: {} } },
        Totales: { type: "object", required: ["MntTotal"], properties: { MntTotal: {} } },
      },
    },
  },
};

/** The same for the document: with `normalizar: false`, each document carries them. */
const AS_GIVEN_RULE = {
  if: { properties: { normalizar: { const: false } }, required: ["normalizar"] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable.
  then: { properties: { dte: { anyOf: [AS_GIVEN, { type: "array", items: AS_GIVEN }] } } },
};

/** A document that names its Folio. */
const WITH_FOLIO = {
  type: "object",
  properties: { Encabezado: { type: "object", properties: { IdDoc: { type: "object", required: ["Folio"] } } } },
};

/** With `caf` the request brings its own folios: each document names its Folio (the ledger fills it in only without `caf`). */
const FOLIO_RULE = {
  if: { required: ["caf"] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable.
  then: { properties: { dte: { anyOf: [WITH_FOLIO, { type: "array", items: WITH_FOLIO }] } } },
};

/** A CAF file: its XML (starts with `<`) or base64 of its bytes, as src/dte/generate/caf.ts reads it. */
const CafFile = z
  .string()
  .min(1)
  .max(MAX_CHARS.caf)
  .register(z.globalRegistry, { pattern: `^\\s*<|${BASE64_PATTERN}`, description: "A CAF file: its XML, or base64 of the file's bytes" });

const Body = z
  .object({
    auth: CertAuthBody.shape.auth,
    // The list's items are checked in the handler, one at a time (generar-input.ts).
    dte: z
      .union([
        DteJson,
        z
          .array(LooseDocument)
          .min(1)
          .register(z.globalRegistry, {
            type: "array",
            items: { $ref: "#/components/schemas/DocumentToSign" },
            minItems: 1,
            maxItems: MAX_BATCH_DOCUMENTS,
          }),
      ])
      .register(z.globalRegistry, {
        description: `One document or a list (at most ${MAX_BATCH_DOCUMENTS}, the SII's maximum per EnvioDTE, or ${MAX_BATCH_BOLETAS} boletas, its maximum per EnvioBOLETA; at most ${MAX_BATCH_LINES} Detalle lines in all), with the SII's tag names (\`Encabezado\`, \`Detalle\`, \`DscRcgGlobal\`, \`Referencia\`, …); single objects are accepted where lists are expected. All of one issuer; boletas (39, 41) and other types go in separate requests (separate envelopes).`,
      }),
    caf: z
      .union([CafFile, z.array(CafFile).min(1).max(MAX_CAFS)])
      .optional()
      .register(z.globalRegistry, {
        description: `The CAF file the SII gave for the folios (the whole \`AUTORIZACION\`, with its private key), raw XML or base64 of the file's bytes (base64 keeps the key's PEM block out of logs and documents); a list of at most ${MAX_CAFS}: one per document type used, or several ranges of a type (each document is stamped with the CAF whose range holds its folio; ranges may not overlap). Left out, the folios and their CAFs come from the account's folio ledger (\`POST /api/v1/platform/dte/folios/{emisor}/{dte}\`).`,
      }),
    resolucion: z
      .object({
        fecha: z.iso
          .date({ error: "must be a date YYYY-MM-DD" })
          .max(MAX_CHARS.date)
          .meta({ description: "The resolution's date, `YYYY-MM-DD`" }),
        numero: z
          .number()
          .int()
          .min(0)
          .max(999_999)
          .register(z.globalRegistry, { description: "The resolution's number (0 in certification)" }),
      })
      .register(z.globalRegistry, {
        description: "The issuer's SII authorization resolution (`numero` 0 in certification), for the envelope's carátula",
      }),
    normalizar: z.boolean().default(true).register(z.globalRegistry, {
      description:
        "Fill in defaults and compute line amounts, taxes and totals first (as `formatos/json` does); `false` takes the document as given",
    }),
    receptor_envio: Rut.optional().meta({
      description: `RutReceptor of the envelope: the SII (${SII_RUT}, the default) for a submission, or the buyer's RUT for the exchange copy`,
    }),
  })
  .openapi("GenerateRequest", {
    allOf: [AS_GIVEN_RULE, FOLIO_RULE],
    example: {
      auth: { cert: EXAMPLE_PFX },
      dte: EXAMPLE_EXEMPT_INVOICE,
      caf: EXAMPLE_CAF,
      resolucion: { fecha: "2014-08-22", numero: 80 },
    },
  });

export const Generated = envelope(
  z
    .object({
      sobre: z.enum(["EnvioDTE", "EnvioBOLETA"]).register(z.globalRegistry, { description: "The kind of envelope `envio_xml` is" }),
      documentos: z.array(
        z.object({
          tipo: z.number().int().register(z.globalRegistry, { example: 33 }),
          folio: z.number().int().register(z.globalRegistry, { example: 1 }),
          dte_xml: z.string().register(z.globalRegistry, { description: "The signed DTE, ISO-8859-1 with its XML declaration, base64" }),
          ted: z
            .string()
            .register(z.globalRegistry, { description: 'The flattened TED (`<TED version="1.0">…</TED>`): the PDF417 barcode\'s content' }),
          warnings: z.array(z.string()).register(z.globalRegistry, {
            description: "What normalizing filled in, computed, cleaned, cut or removed, naming each field",
          }),
        }),
      ),
      envio_xml: z.string().register(z.globalRegistry, {
        description:
          "The signed EnvioDTE (or EnvioBOLETA for boletas) carrying every document, ISO-8859-1, base64: the `xml` of `envios/enviar`",
      }),
      folios_ledger: z
        .array(
          z.object({
            tipo: z.number().int().register(z.globalRegistry, { example: 34 }),
            folios: z
              .array(z.number().int())
              .register(z.globalRegistry, { description: "The ledger's folios the documents of this type carry", example: [1] }),
            disponibles: z
              .number()
              .int()
              .register(z.globalRegistry, { description: "Free folios left for the issuer and type", example: 99 }),
            bajo_umbral: z.boolean().register(z.globalRegistry, {
              description:
                "`disponibles` is at or below the low-folio threshold the account set for the issuer and type (`PUT …/umbral`), as `X-Folios-Low` says; false without one",
              example: false,
            }),
          }),
        )
        .optional()
        .register(z.globalRegistry, {
          description:
            "Present when folios came from the account's ledger: which, per type, what is left and whether that is at or below the threshold",
        }),
    })
    .openapi("GeneratedDocuments"),
);

export function registerDocumentosGenerar(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/documentos/generar",
      tags: ["Documents"],
      summary: "Generate signed documents and their envelope",
      description: `Normalizes each document (unless \`normalizar\` is false), checks its CAF (signed by the SII for its IDK, folio in range, same issuer, not expired: six months for types 33, 43, 46, 56 and 61), stamps the TED with the CAF's key, signs each DTE and the envelope with the certificate. Every problem is a 400 naming its field, before anything is signed (and then nothing is charged). Nothing is sent to the SII. Without \`caf\`, the folios come from the account's folio ledger (\`POST /api/v1/platform/dte/folios/{emisor}/{dte}\`): a document without \`Folio\` gets the next free one of its issuer and type, atomically (never twice, also under concurrent calls); a 404 when the account holds no ledger of the type, a 409 \`FOLIOS_EXHAUSTED\` when too few folios are left in ranges not expired. A document naming its \`Folio\` must name a free folio of the ledger when the account holds one of its type, with or without \`caf\` (else a 409 \`FOLIO_UNAVAILABLE\` naming it). \`folios_ledger\` says which folios of the ledger were used and \`X-Folios-Remaining\` how many are left; a request refused or stopped gives the folios it took back (\`details.folios_liberados\` on a 500), and a folio that appeared in an answer is never handed out again. With an \`Idempotency-Key\`, a retry of the same request gets the stored answer byte for byte (\`Idempotent-Replayed: true\`, not charged, nothing signed again), the same key with another request a 409 \`IDEMPOTENCY_CONFLICT\`, and a retry while the first still runs waits for it. ${chargeRule(WEIGHT, true)} Should signing stop half-way (a 500), only the blocks begun are charged, and \`details\` lists the documents signed (\`firmados\`), the one that failed and why (\`fallido\`), and \`unidades_cobradas\`.`,
      request: { body: jsonBody(Body) },
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
      // A certificate the SII would refuse is a 400 before any folio is taken.
      callerSignerWarnings(signer.certificateBase64);
      // Charged before the work; a refusal (400) gives every unit back, as for any operation.
      await chargeDocuments(c, WEIGHT, documents.length, lines);
      const given = body.caf === undefined ? undefined : Array.isArray(body.caf) ? body.caf : [body.caf];
      const deps = c.get("deps");
      const taker: Taker = {
        deps,
        account: callerOf(c).account(),
        hold: holdFor(deps, c.get("idempotent"), deps.config.idempotencyLeaseMs ?? LEASE_MS),
      };
      const ledger = await takeLedgerFolios(taker, documents, given !== undefined);
      let generated: GeneratedParts;
      try {
        generated = await generateDocumentParts(
          {
            documents,
            cafs: given ?? ledger?.cafs ?? [],
            resolucion: body.resolucion,
            normalizar: body.normalizar,
            receptorEnvio: body.receptor_envio,
          },
          { signer, now: deps.clock.now(), cafKeys: trustedCafKeys(deps), pause },
        );
        // From here on an answer holding the folios exists: nothing gives them back.
        if (ledger) await settleTake(taker, ledger);
      } catch (error) {
        // Nothing signed is answered: the folios this attempt still holds go back to the ledger.
        const released = ledger ? await giveBack(taker, ledger) : [];
        if (error instanceof GenerationStopped) throw await stopped(c, error, released);
        throw error;
      }
      if (ledger) await answerLedger(c, taker, ledger);
      return okStream(c, generatedJson(generated, pause, ledger?.uses));
    },
  );
}

/**
 * What each type used has left, for `folios_ledger`; `X-Folios-Remaining` (the fewest) and `X-Folios-Low: true`
 * when a type used is at or below the threshold the account set for it.
 */
async function answerLedger(c: Context<AppEnv>, taker: Taker, ledger: LedgerTake): Promise<void> {
  await remaining(taker, ledger);
  c.header("X-Folios-Remaining", String(Math.min(...ledger.uses.map((u) => u.disponibles))));
  if (ledger.uses.some((u) => u.bajo_umbral)) c.header("X-Folios-Low", "true");
}

/**
 * The answer when signing stopped half-way: the blocks holding a signed document are charged
 * (none when nothing was signed), and the error says which documents were signed and which failed and why,
 * and which ledger folios went back to the ledger (`folios_liberados`).
 */
async function stopped(c: Context<AppEnv>, error: GenerationStopped, released: Released): Promise<ApiError> {
  const signed = error.signed.length;
  const begun = signed === 0 ? 0 : unitsFor(WEIGHT, signed);
  await settleCharge(c, begun);
  const cause = error.cause instanceof Error ? error.cause.name : "error";
  c.get("deps").log.log({ level: "error", msg: "generar stopped half-way", request_id: c.get("requestId"), signed, error: cause });
  return new ApiError(
    500,
    "INTERNAL_ERROR",
    `Signing stopped at dte[${error.failed.index}] after ${signed} of the documents were signed; nothing was answered signed: send the request again`,
    {
      details: {
        firmados: error.signed,
        fallido: error.failed,
        unidades_cobradas: begun,
        ...(released.length ? { folios_liberados: released } : {}),
      },
    },
  );
}

/** The answer's `data` as JSON text in pieces: each document, then the envelope's base64 in slices. */
async function* generatedJson(generated: GeneratedParts, pause: () => Promise<void>, ledger?: LedgerUse[]): AsyncGenerator<string> {
  yield `{"sobre":${JSON.stringify(generated.sobre)},"documentos":[`;
  for (const [i, documento] of generated.documentos.entries()) {
    yield (i ? "," : "") + JSON.stringify(documento);
    await pause();
  }
  yield '],"envio_xml":"';
  // Base64 needs no JSON escape.
  for (const piece of generated.envioBase64) {
    yield piece;
    await pause();
  }
  yield ledger ? `","folios_ledger":${JSON.stringify(ledger)}}` : '"}';
}
