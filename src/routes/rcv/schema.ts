// The RCV operations' schemas: credentials, path parameters, and the answers several operations share.
import { z } from "@hono/zod-openapi";
import { Ambiente, DryRun, Formato } from "../../platform/params.ts";
import { envelope } from "../../platform/schemas.ts";
import { RCV_ESTADOS } from "../../sii/rcv.ts";
import { PassOrCertAuth } from "../credentials.ts";
import { EXAMPLE_CLAVE } from "../example-credentials.ts";

export const Estado = z.enum(RCV_ESTADOS, { error: `must be one of ${RCV_ESTADOS.join(", ")}` }).openapi({ example: "REGISTRO" });

export const RcvAuthBody = z
  .object({ auth: PassOrCertAuth })
  .openapi("RcvAuth", { example: { auth: { pass: EXAMPLE_CLAVE } } });

export type RcvAuth = z.output<typeof RcvAuthBody>["auth"];

/** Document types of the register (0: all). */
export const RCV_TYPES = [
  0, 29, 30, 32, 33, 34, 35, 38, 39, 40, 41, 43, 45, 46, 48, 55, 56, 60, 61, 101, 102, 103, 104, 105, 106, 108, 109, 110, 111, 112, 914,
];

export const Dte = z.coerce
  .number({ error: "must be a document type number" })
  .int()
  .refine((n) => RCV_TYPES.includes(n), { error: `must be 0 (all) or a document type of the register (${RCV_TYPES.slice(1).join(", ")})` })
  .openapi({ param: { name: "dte", in: "path" }, type: "integer", example: 33 });

export const Document = z.object({
  tipo_documento: z.number().int(),
  folio: z.number().int(),
  rut: z.string().openapi({ description: "The counterpart, `XXXXXXXX-K`" }),
  razon_social: z.string(),
  fecha: z.string().openapi({ format: "date" }),
  fecha_recepcion: z.string().nullable(),
  monto_exento: z.number(),
  monto_neto: z.number(),
  monto_iva: z.number(),
  monto_total: z.number(),
  estado: z.string(),
  nota_credito: z.boolean(),
  otros_impuestos: z
    .array(z.object({ codigo: z.number().int(), valor: z.number(), tasa: z.number().nullable() }))
    .optional()
    .openapi({
      description:
        "Other taxes of the document (asynchronous download only: the SII's file gives each on a line of its own, joined here to their document)",
    }),
});

export const AmbienteQuery = z.object({ ambiente: Ambiente });

// Summaries (…/resumen/…).
const SummaryRow = z.object({
  tipo_documento: z.number().int(),
  nombre_documento: z.string(),
  tipo_ingreso: z
    .string()
    .openapi({ description: "`DET_ELE` electronic with detail, `DET_PAP` paper, `RESUMEN` totals only (e.g. boletas)" }),
  documentos: z.number().int(),
  monto_exento: z.number(),
  monto_neto: z.number(),
  monto_iva: z.number(),
  monto_iva_no_recuperable: z.number(),
  iva_uso_comun: z.number(),
  monto_total: z.number(),
  nota_credito: z.boolean().openapi({ description: "Credit notes come with positive amounts: subtract them" }),
});

export const Summary = envelope(
  z
    .object({
      rut: z.string(),
      periodo: z.string(),
      operacion: z.enum(["COMPRA", "VENTA"]),
      estado: z.string(),
      total_documentos: z.number().int(),
      resumen: z.array(SummaryRow),
      sii: z
        .record(z.string(), z.unknown())
        .openapi({ description: "The SII's answer as received: `data` (rsmn* rows), `totDocRes`, `dataCabecera`, `respEstado`" }),
    })
    .openapi("RcvResumen"),
);

// Details (…/detalle/…).
const Detail = envelope(
  z
    .object({
      rut: z.string(),
      periodo: z.string(),
      operacion: z.enum(["COMPRA", "VENTA"]),
      estado: z.string(),
      registros: z.number().int().openapi({ description: "How many documents `documentos` holds" }),
      documentos: z.array(Document),
      sin_detalle: z
        .array(z.number().int())
        .openapi({ description: "Types the SII keeps only as totals in this period (no per-document detail)" }),
      sii: z
        .object({ data: z.array(z.record(z.string(), z.unknown())) })
        .openapi({ description: "The SII's rows as received (det* fields)" }),
    })
    .openapi("RcvDetalle"),
);

export const DetailQuery = z.object({ ambiente: Ambiente, formato: Formato(["json", "csv"]) });

export const DetailResponse = {
  description: "The documents, or with `formato=csv` the SII's export (ISO-8859-1) as received",
  content: { "application/json": { schema: Detail }, "text/csv": { schema: { type: "string" as const } } },
};

// Asynchronous downloads (…/async/…).
export const Job = z
  .object({
    solicitud_id: z.number().int(),
    estado: z.string().openapi({ description: "The SII's state: `CREADO`, `EN PROCESO`, `TERMINADO`, or an error" }),
    tipo_documento: z.number().int(),
    registros: z.number().int().openapi({ description: "Documents in the file (once TERMINADO)" }),
    creado: z.string().nullable(),
    terminado: z.string().nullable(),
    error: z.string().nullable(),
  })
  .openapi("RcvAsyncJob");

export const JobEnvelope = envelope(Job);
export const FileEnvelope = envelope(
  z.object({ solicitud_id: z.number().int(), registros: z.number().int(), documentos: z.array(Document) }).openapi("RcvAsyncDetalle"),
);

export const SolicitudId = z.coerce
  .number({ error: "must be a number" })
  .int()
  .positive({ error: "must be positive" })
  .openapi({ param: { name: "solicitud_id", in: "path" }, type: "integer", example: 800001 });

// Writes (…/set_*, …/delete_*).
/** Types a taxpayer declares as monthly summaries instead of per document. */
export const SUMMARY_TYPES = [35, 38, 39, 41, 48] as const;

export const Amount = z.number().int({ error: "must be a whole number of pesos" }).min(0, { error: "must be 0 or more" });
export const Count = z.number().int({ error: "must be a whole number" }).min(0, { error: "must be 0 or more" });
export const Totals = { monto_exento: Amount, monto_neto: Amount, monto_iva: Amount, monto_total: Amount };

export const Written = envelope(
  z.object({ rut: z.string(), periodo: z.string(), sii: z.record(z.string(), z.unknown()) }).openapi("RcvWrite"),
);
export const WriteQuery = z.object({ ambiente: Ambiente, dry_run: DryRun });

export const withAuth = <T extends z.ZodRawShape>(shape: T) => RcvAuthBody.extend(shape);
