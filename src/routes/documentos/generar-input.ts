// What a `documentos/generar` request is: its body's schema, and its documents checked against their
// schema one at a time with pauses between them: 2 000 documents through the schema in one go held the
// thread ~100 ms. The refusal is the one the body's validation gives (422, each field named), as if the
// schema had run.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { GENERATED_TYPES, SII_RUT } from "../../dte/generate/generate.ts";
import { MAX_BATCH_BOLETAS, MAX_BATCH_DOCUMENTS, MAX_BATCH_LINES } from "../../platform/batch-limits.ts";
import { MAX_CHARS, Rut } from "../../platform/params.ts";
import { validationHook } from "../../platform/validation.ts";
import { CertAuthBody } from "../credentials.ts";
import { EXAMPLE_PFX } from "../example-credentials.ts";
import { EXAMPLE_CAF, EXAMPLE_EXEMPT_INVOICE } from "../example-documents.ts";
import { BASE64_PATTERN, dteJson } from "./schema.ts";

/** What normalizing would fill in, so a document taken as given must carry it (the engine's REQUIRED). */
export const AS_GIVEN_REQUIRED = [
  ["IdDoc", "FchEmis"],
  ["Totales", "MntTotal"],
] as const;

/** A list item as the body's schema takes it: any object, checked document by document afterwards. */
export const LooseDocument = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  { error: "must be an object" },
);

/** Taken as given (`normalizar: false`), nothing fills in the date or the total: the document must carry them. */
function asGivenIssues(document: Record<string, unknown>, at: PropertyKey[]): z.core.$ZodIssue[] {
  const encabezado = (document.Encabezado ?? {}) as Record<string, unknown>;
  const part = (name: string) => (encabezado[name] ?? {}) as Record<string, unknown>;
  return AS_GIVEN_REQUIRED.filter(([name, field]) => part(name)[field] === undefined).map(([name, field]) => ({
    code: "custom" as const,
    path: [...at, "Encabezado", name, field],
    message: "is required with normalizar: false",
    input: undefined,
  }));
}

/**
 * Each document of `body.dte` through `schema` (a list is checked item by item, pausing between
 * them), and the as-given rule; any problem throws the body's validation error.
 */
export async function validDocuments<T extends z.ZodType<Record<string, unknown>>>(
  c: Context,
  schema: T,
  body: { dte: Record<string, unknown> | Record<string, unknown>[]; normalizar: boolean },
  pause: () => Promise<void>,
): Promise<z.output<T>[]> {
  const list = Array.isArray(body.dte);
  const documents = Array.isArray(body.dte) ? body.dte : [body.dte];
  const issues: z.core.$ZodIssue[] = [];
  const valid: z.output<T>[] = [];
  for (const [i, document] of documents.entries()) {
    const at: PropertyKey[] = list ? ["dte", i] : ["dte"];
    // A lone document was checked by the body's schema already.
    const result = list ? schema.safeParse(document) : { success: true as const, data: document as z.output<T> };
    if (result.success) {
      valid.push(result.data);
      if (!body.normalizar) issues.push(...asGivenIssues(result.data, at));
    } else issues.push(...result.error.issues.map((issue) => ({ ...issue, path: [...at, ...issue.path] })));
    await pause();
  }
  if (issues.length) validationHook({ success: false, error: new z.ZodError(issues), target: "json", data: body }, c);
  return valid;
}

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
export const Body = z
  .object({
    auth: CertAuthBody.shape.auth,
    // The list's items are checked in the handler, one at a time (validDocuments, below).
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
