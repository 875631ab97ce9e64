// The schemas the documents and submissions operations share: a document as JSON (its shape as
// validated) and uploaded XML (a DTE, EnvioDTE or EnvioBOLETA as base64); and generar's request
// (its documents checked one at a time: generar-input.ts) and answer.
import { z } from "@hono/zod-openapi";
import { GENERATED_TYPES, SII_RUT } from "../../dte/generate/generate.ts";
import { boundsProblems, maxText, widestBound } from "../../dte/normalize/bounds.ts";
import { NEVER_SIGNED, NON_NEGATIVE_FIELDS } from "../../dte/normalize/fields.ts";
import { TRANSFER_INVOICES, TRANSFER_RULES_FROM } from "../../dte/normalize/transfer-rules.ts";
import { MAX_BATCH_BOLETAS, MAX_BATCH_DOCUMENTS, MAX_BATCH_LINES, MAX_DOCUMENT_LINES } from "../../platform/batch-limits.ts";
import { MAX_CHARS, RUT_PATTERN, Rut } from "../../platform/params.ts";
import { envelope } from "../../platform/schemas.ts";
import { CertAuthBody } from "../credentials.ts";
import { EXAMPLE_PFX } from "../example-credentials.ts";
import { EXAMPLE_CAF, EXAMPLE_EXEMPT_INVOICE } from "../example-documents.ts";
import { MAX_FOLIO } from "../folio-fields.ts";
import { BASE64_PATTERN } from "../uploaded-xml.ts";

/** The transfer rules as the operations that normalize or sign state them. */
export const TRANSFER_RULE_TEXT = `A guía de despacho (52), or an invoice (${[...TRANSFER_INVOICES].join(", ")}) with \`TipoDespacho\`, dated (\`FchEmis\`, else today) from ${TRANSFER_RULES_FROM} needs its transfer data (Res. Ex. SII 154/2025: origin, destination, driver, and carrier and plate when the issuer carries; a guía also \`IndTraslado\` and each line's quantity and unit): a 400 names every missing field; dated earlier, each is a warning.`;

// Uploaded XML is the routes' shared schema (src/routes/uploaded-xml.ts): the submissions take it too.
export { BASE64, BASE64_PATTERN, XmlField } from "../uploaded-xml.ts";

/**
 * The document's statement of bounded numbers (src/dte/normalize/bounds.ts, from the SII's schemas):
 * the widest range of each tag. The check is the document's schema's refinement, wherever a tag
 * appears; negative amounts are a liquidación-factura's (43) alone, which the description says.
 */
function boundedNumbers(tags: string): Record<string, unknown> {
  const entries = tags.split(" ").map((tag) => {
    const bound = widestBound(tag);
    if (bound === undefined) throw new Error(`${tag} has no bound in the SII's schemas`);
    const below = 10 ** bound.digits;
    const unsigned = NON_NEGATIVE_FIELDS.has(tag);
    return [
      tag,
      {
        type: "number",
        ...(unsigned ? { minimum: 0 } : { exclusiveMinimum: -below }),
        ...(bound.max === undefined ? { exclusiveMaximum: below } : { maximum: bound.max }),
        description: `The SII's ${bound.type}: up to ${maxText(bound)}${unsigned && !NEVER_SIGNED.has(tag) ? " (negative only in a liquidación-factura, 43)" : ""}; its digits as a string are read too`,
      },
    ];
  });
  return { properties: Object.fromEntries(entries) };
}

const LINE_NUMBERS = boundedNumbers("QtyItem PrcItem DescuentoPct DescuentoMonto RecargoPct RecargoMonto MontoItem QtyRef PrcRef");
const GLOBAL_NUMBERS = boundedNumbers("ValorDR");
const TOTAL_NUMBERS = boundedNumbers("MntNeto MntExe MntBase TasaIVA IVA IVANoRet CredEC MntTotal MontoNF MontoPeriodo VlrPagar");

/** An object the engine reads, its bounded numbers stated (`numbers`, from `boundedNumbers`). */
const Part = (numbers: Record<string, unknown>) => z.record(z.string(), z.unknown()).register(z.globalRegistry, numbers);

/**
 * A list the engine walks line by line, at most `max` long (or one object where the schema has a
 * list). An item that is no object is the engine's to drop, as before its numbers were stated.
 */
const Lines = (max: number, description: string, numbers: Record<string, unknown> = {}) =>
  z
    .union([
      Part(numbers),
      z.array(z.unknown().register(z.globalRegistry, { type: "object", additionalProperties: {}, ...numbers })).max(max),
    ])
    .optional()
    .register(z.globalRegistry, { description });

/**
 * `TipoDTE` as a number or its digits (ERPs send both). The types an operation takes are checked by
 * the engine (a 400 naming the field); the document lists them as an enum from the same constant.
 * The document gives the number form only: `anyOf` an integer enum and a string enum became one
 * object with duplicate keys in orval's output (TS1117), so the digits are said in the description.
 */
const TipoDte = (types: readonly number[]) =>
  z
    .union([
      z.number().int(),
      z
        .string()
        .max(3)
        .regex(/^\d{1,3}$/, { error: "must be a document type number" }),
    ])
    .transform(Number)
    .register(z.globalRegistry, {
      type: "integer",
      enum: [...types],
      description: `The document type: ${types.join(", ")} (its digits as a string, \`"33"\`, are accepted too)`,
      example: 33,
    });

/** The folio of a document to sign: a number or its digits, from 1 to ten digits (DTE_v10.xsd FolioType). */
const FolioField = z
  .union([
    z.number().int({ error: "must be a positive integer" }).min(1, { error: "must be a positive integer" }).max(MAX_FOLIO),
    z
      .string()
      .max(20)
      .regex(/^0*[1-9]\d{0,9}$/, { error: "must be a positive integer" }),
  ])
  .register(z.globalRegistry, {
    description:
      "The folio, within the CAF's range (a number, or its digits as a string); left out in a request without `caf`, the next free folio of the account's ledger",
    example: 1,
  });

/** A RUT inside the document, in the forms the engine reads (the check digit is the engine's to verify). */
const RutField = (description: string) =>
  z
    .string({ error: "is required" })
    .max(MAX_CHARS.rut)
    .regex(new RegExp(RUT_PATTERN), { error: "must be a RUT, XXXXXXXX-K" })
    .register(z.globalRegistry, { description: `${description}, \`XXXXXXXX-K\` (check digit verified)`, pattern: RUT_PATTERN });

/**
 * What is checked before the engine sees it: the type and the size of its lists; everything else
 * passes through. `types`: the document types the operation takes. `signed`: the document is to
 * be signed, so the fields signing cannot do without (the engine's REQUIRED besides what
 * normalizing fills in) are required here too.
 */
export const dteJson = (types: readonly number[], signed = false) =>
  z
    .object({
      Encabezado: z
        .object({
          IdDoc: z
            .object({ TipoDTE: TipoDte(types), ...(signed ? { Folio: FolioField.optional() } : {}) })
            .passthrough()
            .register(z.globalRegistry, { description: "`TipoDTE`, `Folio`, `FchEmis` and the rest of the SII's IdDoc" }),
          ...(signed
            ? {
                Emisor: z
                  .object({ RUTEmisor: RutField("The issuer's RUT: the CAF's") })
                  .passthrough()
                  .register(z.globalRegistry, { description: "The issuer (`RUTEmisor`, `RznSoc`, `GiroEmis`, `Acteco`, …)" }),
                Receptor: z
                  .object({ RUTRecep: RutField("The receiver's RUT") })
                  .passthrough()
                  .register(z.globalRegistry, { description: "The receiver (`RUTRecep`, `RznSocRecep`, …)" }),
              }
            : {}),
          Totales: Part(TOTAL_NUMBERS)
            .optional()
            .meta({ description: "The totals (`MntNeto`, `IVA`, `MntTotal`, …): computed when left out" }),
        })
        .passthrough()
        .register(z.globalRegistry, { description: "`IdDoc`, `Emisor`, `Receptor`, `Totales`… with the SII's tag names (DTE_v10.xsd)" }),
      // The SII's schemas: Detalle 1..60 (boletas 1..1000), DscRcgGlobal ≤ 20, Referencia ≤ 40 (DTE_v10.xsd).
      Detalle: Lines(
        MAX_DOCUMENT_LINES,
        `The lines: at most ${MAX_DOCUMENT_LINES} (the boleta schema's maximum; other types take 60)`,
        LINE_NUMBERS,
      ),
      DscRcgGlobal: Lines(20, "Global discounts and surcharges: at most 20", GLOBAL_NUMBERS),
      Referencia: Lines(40, "References: at most 40"),
    })
    .passthrough()
    // Every number the SII's schemas bound, wherever it appears: a 422 naming it with its widest range
    // (a PrcItem of 1e308 would otherwise overflow the line's amount); a type's narrower range (a
    // boleta's) is the engine's 400. The signed document's Folio is checked above.
    .superRefine((dte, ctx) => {
      for (const issue of boundsProblems(dte, signed ? SIGNED_CHECKED : undefined))
        ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    });

/** Numbers the signed document's schema checks itself. */
const SIGNED_CHECKED = new Set(["Folio"]);

export const ResolucionField = z
  .object({
    numero: z.number().int().min(0).register(z.globalRegistry, { description: "The resolution's number (0 in certification)" }),
    fecha: z.iso
      .date({ error: "must be a date YYYY-MM-DD" })
      .max(MAX_CHARS.date)
      .meta({ description: "The resolution's date, `YYYY-MM-DD`" }),
  })
  .optional()
  .register(z.globalRegistry, { description: "The SII resolution printed under the stamp; by default the envelope's carátula's" });

/** What `documentos/generar` answers: the signed documents, their envelope, and what the ledger gave. */
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

/** A list item as the body's schema takes it: any object, checked document by document afterwards. */
export const LooseDocument = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  { error: "must be an object" },
);

/** A document to sign: the types generar issues, the fields signing needs. */
export const DteJson = dteJson(GENERATED_TYPES, true).openapi("DocumentToSign");
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

/** The request body. */
export const GenerateRequest = z
  .object({
    auth: CertAuthBody.shape.auth,
    // The list's items are checked in the handler, one at a time (validDocuments, generar-input.ts).
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
