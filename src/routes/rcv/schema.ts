// The RCV operations' schemas: credentials, path parameters, and the answers several operations share.
import { z } from "@hono/zod-openapi";
import { contentDispositionHeader } from "../../platform/file-answer.ts";
import { Ambiente, DryRun, Formato, IntegerEnum, IntegerParam, Rut } from "../../platform/params.ts";
import { PreviewMark } from "../../platform/preview.ts";
import { BYTES, envelope } from "../../platform/schemas.ts";
import { Document, RCV_TYPES, RcvAuthBody } from "../rcv-shared.ts";

export { Document, Estado, FileEnvelope, RCV_TYPES, type RcvAuth, RcvAuthBody, RcvPeriodo } from "../rcv-shared.ts";

/** The taxpayer whose purchases are read or written (the receiver of the documents). */
export const Receptor = Rut.meta({
  description:
    "The taxpayer whose purchases register this is (the documents' receiver), `XXXXXXXX-K`; the check digit is verified by the server (modulo 11, which a pattern cannot express)",
  example: "76192083-9",
});

/** The taxpayer whose sales are read or written (the issuer of the documents). */
export const Emisor = Rut.meta({
  description:
    "The taxpayer whose sales register this is (the documents' issuer), `XXXXXXXX-K`; the check digit is verified by the server (modulo 11, which a pattern cannot express)",
  example: "76192083-9",
});

export const Dte = IntegerParam({
  min: 0,
  max: 914,
  values: RCV_TYPES,
  noun: "a document type number",
  valuesMessage: `must be 0 (all) or a document type of the register (${RCV_TYPES.slice(1).join(", ")})`,
  example: 33,
  description:
    "Document type (SII code): `33` factura, `34` factura exenta, `39` boleta, `46` factura de compra, `56` nota de débito, `61` nota de crédito, …; `0` every type of the period",
});

export const AmbienteQuery = z.object({ ambiente: Ambiente });

// Summaries (…/resumen/…).
const SummaryRow = z.object({
  tipo_documento: z.number().int(),
  nombre_documento: z.string(),
  tipo_ingreso: z
    .string()
    .register(z.globalRegistry, { description: "`DET_ELE` electronic with detail, `DET_PAP` paper, `RESUMEN` totals only (e.g. boletas)" }),
  documentos: z.number().int(),
  monto_exento: z.number(),
  monto_neto: z.number(),
  monto_iva: z.number(),
  monto_iva_no_recuperable: z.number(),
  iva_uso_comun: z.number(),
  monto_total: z.number(),
  nota_credito: z.boolean().register(z.globalRegistry, { description: "Credit notes come with positive amounts: subtract them" }),
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
      sii: z.record(z.string(), z.unknown()).register(z.globalRegistry, {
        description: "The SII's answer as received: `data` (rsmn* rows), `totDocRes`, `dataCabecera`, `respEstado`",
      }),
    })
    .openapi("RcvResumen"),
);

// Details (…/detalle/…).
export const Detail = envelope(
  z
    .object({
      rut: z.string(),
      periodo: z.string(),
      operacion: z.enum(["COMPRA", "VENTA"]),
      estado: z.string(),
      registros: z.number().int().register(z.globalRegistry, { description: "How many documents `documentos` holds" }),
      documentos: z.array(Document),
      sin_detalle: z
        .array(z.number().int())
        .register(z.globalRegistry, { description: "Types the SII keeps only as totals in this period (no per-document detail)" }),
      sii: z
        .object({ data: z.array(z.record(z.string(), z.unknown())) })
        .register(z.globalRegistry, { description: "The SII's rows as received (det* fields)" }),
    })
    .openapi("RcvDetalle"),
);

export const DetailQuery = z.object({ ambiente: Ambiente, formato: Formato(["json", "csv"]) });

export const DetailResponse = {
  description:
    "The documents, or with `formato=csv` the SII's export (ISO-8859-1, an attachment named `RCV_<operacion>_<estado>_<RUT>_<periodo>.csv`) as received, except that a cell a spreadsheet would read as a formula (starting with `=`, `+`, `-`, `@`, tab or carriage return, other than a plain number) gets a leading `'` (OWASP CSV injection)",
  headers: contentDispositionHeader('attachment; filename="RCV_COMPRA_REGISTRO_76192083-9_202401.csv"'),
  content: { "application/json": { schema: Detail }, "text/csv": { schema: BYTES } },
};

// Asynchronous downloads (…/async/…).
export const Job = z
  .object({
    solicitud_id: z.number().int(),
    estado: z.string().register(z.globalRegistry, { description: "The SII's state: `CREADO`, `EN PROCESO`, `TERMINADO`, or an error" }),
    tipo_documento: z.number().int(),
    registros: z.number().int().register(z.globalRegistry, { description: "Documents in the file (once TERMINADO)" }),
    creado: z.string().nullable(),
    terminado: z.string().nullable(),
    error: z.string().nullable(),
  })
  .openapi("RcvAsyncJob");

export const JobEnvelope = envelope(Job);
export const SolicitudId = IntegerParam({
  min: 1,
  max: Number.MAX_SAFE_INTEGER,
  noun: "a number",
  example: 800001,
  description: "The download request's id, as step 1 (`solicitar`) answered it",
});

// Writes (…/set_*, …/delete_*).
/** Types a taxpayer declares as monthly summaries instead of per document. */
export const SUMMARY_TYPES = [35, 38, 39, 41, 48] as const;

/** A folio has at most 10 digits (DTE_v10.xsd FolioType). */
export const MAX_FOLIO = 9_999_999_999;

export const Amount = z.number().int({ error: "must be a whole number of pesos" }).min(0, { error: "must be 0 or more" });
export const Count = z.number().int({ error: "must be a whole number" }).min(0, { error: "must be 0 or more" });
export const Totals = {
  monto_exento: Amount.meta({ description: "Exempt amount, CLP" }),
  monto_neto: Amount.meta({ description: "Net amount, CLP" }),
  monto_iva: Amount.meta({ description: "VAT, CLP" }),
  monto_total: Amount.meta({
    description: "Total, CLP: must equal monto_exento + monto_neto + monto_iva (a 400 names it otherwise; a schema cannot add)",
  }),
};

/** A summary type, for bodies (the document lists them). */
export const SummaryType = IntegerEnum(SUMMARY_TYPES, `must be one of ${SUMMARY_TYPES.join(", ")}`);

export const Written = envelope(
  z.object({ rut: z.string(), periodo: z.string(), sii: z.record(z.string(), z.unknown()), vista_previa: PreviewMark }).openapi("RcvWrite"),
);
export const WriteQuery = z.object({ ambiente: Ambiente, dry_run: DryRun });

export const withAuth = <T extends z.ZodRawShape>(shape: T) => RcvAuthBody.extend(shape);
