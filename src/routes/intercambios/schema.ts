// The exchange operations' schemas: the document a path names, the query answers, and the
// documents respuesta_sii takes.
import { z } from "@hono/zod-openapi";
import { Ambiente, IntegerEnum, IntegerParam, Rut } from "../../platform/params.ts";
import { envelope, pathParams } from "../../platform/schemas.ts";
import { businessRule } from "../../platform/validation.ts";
import { CertAuthBody } from "../credentials.ts";
import { EXAMPLE_PFX } from "../example-credentials.ts";
import { Folio, FolioNumber } from "../folio-fields.ts";

/** Electronic document types (DTE). */
export const DTE_TYPES = [33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112] as const;
/** Types that take acceptance or claim at the SII (and can be assigned). */
export const ACTIONABLE_TYPES = [33, 34, 43] as const;

/** A document type in a path. */
export const DteType = IntegerParam({
  min: Math.min(...DTE_TYPES),
  max: Math.max(...DTE_TYPES),
  values: DTE_TYPES,
  noun: "a document type number",
  example: 33,
  description: "The document type (33 invoice, 34 exempt invoice, 43 liquidación-factura, …)",
});

export const DocumentParams = pathParams({
  // The example is a document the sandbox company received (the sandbox's seeded supplier).
  emisor: Rut.meta({ description: "The document's issuer", example: "77123456-9" }),
  dte: DteType,
  folio: Folio.meta({ example: 1001 }),
});

export const AmbienteQuery = z.object({ ambiente: Ambiente });

const DocumentFields = {
  emisor: z.string().register(z.globalRegistry, { example: "77123456-9" }),
  dte: z.number().int().register(z.globalRegistry, { example: 33 }),
  folio: z.number().int().register(z.globalRegistry, { example: 1001 }),
};
const SiiCode = {
  codigo: z.number().int().register(z.globalRegistry, { description: "The SII's `codResp`" }),
  glosa: z.string().register(z.globalRegistry, { description: "The SII's `descResp`" }),
};

export const Cesion = envelope(
  z
    .object({
      ...DocumentFields,
      cedible: z.boolean().register(z.globalRegistry, { description: "True for the SII's codes 23 and 25" }),
      ...SiiCode,
    })
    .openapi("Assignability"),
);

export const Eventos = envelope(
  z
    .object({
      ...DocumentFields,
      ...SiiCode,
      eventos: z.array(
        z.object({
          codigo: z
            .string()
            .register(z.globalRegistry, { description: "`ERM`, `ACD`, `RCD`, `RFP`, `RFT`, `NCA`, `ENC`…", example: "ACD" }),
          descripcion: z.string(),
          responsable: z.string().register(z.globalRegistry, { description: "Who registered it, `XXXXXXXX-K`" }),
          fecha: z.string().nullable().register(z.globalRegistry, { format: "date-time", description: "ISO 8601 with Chile's offset" }),
          fecha_sii: z
            .string()
            .register(z.globalRegistry, { description: "The SII's own `DD-MM-YYYY HH:MM:SS`", example: "29-12-2016 12:05:36" }),
        }),
      ),
    })
    .openapi("DocumentEvents"),
);

export const Recepcion = envelope(
  z
    .object({
      ...DocumentFields,
      fecha_recepcion: z.string().register(z.globalRegistry, { format: "date-time", example: "2017-02-21T19:02:03-03:00" }),
      fecha_recepcion_sii: z.string().register(z.globalRegistry, { example: "21-02-2017 19:02:03" }),
    })
    .openapi("SiiReception"),
);

export const MAX_DOCUMENTS = 50;
const ACCIONES = ["ERM", "ACD", "RCD", "RFP", "RFT"] as const;

export const documentoShape = {
  emisor: Rut.meta({ description: "Issuer of the received document" }),
  // A DTE type that takes no acceptance or claim is a business rule (400 naming the document).
  dte: IntegerEnum(DTE_TYPES)
    .refine(
      (n) => (ACTIONABLE_TYPES as readonly number[]).includes(n),
      businessRule(`takes no acceptance or claim; only ${ACTIONABLE_TYPES.join(", ")}`),
    )
    .meta({
      enum: [...ACTIONABLE_TYPES],
      description: "33, 34 or 43 (the types that take acceptance or claim)",
      example: 33,
    }),
  folio: FolioNumber,
  accion: z.enum(ACCIONES, { error: `must be one of ${ACCIONES.join(", ")}` }).register(z.globalRegistry, {
    description:
      "`ERM` receipt of goods or services (Ley 19.983), `ACD` accept contents, `RCD` claim contents, `RFP` claim partial lack of goods, `RFT` claim total lack of goods",
  }),
};
export const Documento = z.object(documentoShape).openapi("ReceiverResponseDocument");

/** respuesta_sii's body: the receiver's certificate and one document or a list of them. */
export const RespuestaBody = z
  .object({
    auth: CertAuthBody.shape.auth,
    documentos: z
      .preprocess(
        (value) => (value && typeof value === "object" && !Array.isArray(value) ? [value] : value),
        z
          .array(Documento)
          .min(1, { error: "must list at least one document" })
          .max(MAX_DOCUMENTS, { error: `at most ${MAX_DOCUMENTS} documents per call` }),
      )
      // A lone object is taken as a list of one (`type` widened: the generated list schema says array).
      .meta({
        type: ["object", "array"],
        items: { $ref: "#/components/schemas/ReceiverResponseDocument" },
        anyOf: [
          { $ref: "#/components/schemas/ReceiverResponseDocument" },
          { type: "array", items: { $ref: "#/components/schemas/ReceiverResponseDocument" }, minItems: 1, maxItems: MAX_DOCUMENTS },
        ],
        description: `One document or a list of up to ${MAX_DOCUMENTS}`,
      }),
  })
  .openapi("ReceiverResponseRequest", {
    example: {
      auth: { cert: EXAMPLE_PFX },
      documentos: [{ emisor: "77123456-9", dte: 33, folio: 1001, accion: "ACD" }],
    },
  });
