// The RCV's shapes that the RCV operations and the RCV download job (`POST /api/v1/jobs`, its
// `result`) share: the state, the period, the types, the credentials, and the documents of a file.
import { z } from "@hono/zod-openapi";
import { MAX_CHARS } from "../platform/params.ts";
import { envelope } from "../platform/schemas.ts";
import { RCV_ESTADOS } from "../sii/rcv.ts";
import { PassOrCertAuth } from "./credentials.ts";
import { EXAMPLE_CLAVE } from "./example-credentials.ts";

export const Estado = z.enum(RCV_ESTADOS, { error: `must be one of ${RCV_ESTADOS.join(", ")}` }).register(z.globalRegistry, {
  description:
    "State of the purchases in the register: `REGISTRO` registered, `PENDIENTE` pending acceptance, `NO_INCLUIR` excluded, `RECLAMADO` claimed",
  example: "REGISTRO",
});

/** The SII's first RCV period (src/services/rcv.ts checks the upper bound, the current month in Chile). */
const RCV_PERIOD = /^(?:2017(?:0[5-9]|1[0-2])|(?:201[89]|20[2-9]\d|2[1-9]\d\d)(?:0[1-9]|1[0-2]))$/;

export const RcvPeriodo = z
  .string()
  .max(MAX_CHARS.periodo)
  .regex(RCV_PERIOD, { error: "must be a period YYYYMM from 201705 (the RCV's first month)" })
  .register(z.globalRegistry, {
    description:
      "Tax period `YYYYMM`, from `201705` (the register's first month) to the current month in Chile (a later month is a 400 the pattern cannot express)",
    example: "202405",
  });

export const RcvAuthBody = z.object({ auth: PassOrCertAuth }).openapi("RcvAuth", { example: { auth: { pass: EXAMPLE_CLAVE } } });

export type RcvAuth = z.output<typeof RcvAuthBody>["auth"];

/** Document types of the register (0: all). */
export const RCV_TYPES = [
  0, 29, 30, 32, 33, 34, 35, 38, 39, 40, 41, 43, 45, 46, 48, 55, 56, 60, 61, 101, 102, 103, 104, 105, 106, 108, 109, 110, 111, 112, 914,
] as const;

export const Document = z.object({
  tipo_documento: z.number().int(),
  folio: z.number().int(),
  rut: z.string().register(z.globalRegistry, { description: "The counterpart, `XXXXXXXX-K`" }),
  razon_social: z.string(),
  fecha: z.string().register(z.globalRegistry, { format: "date" }),
  fecha_recepcion: z.string().nullable(),
  monto_exento: z.number(),
  monto_neto: z.number(),
  monto_iva: z.number().register(z.globalRegistry, {
    description:
      "VAT, CLP: for purchases the recoverable VAT only (`Monto IVA Recuperable`, `detMntIVA`); the rest is in `monto_iva_no_recuperable`",
  }),
  monto_iva_no_recuperable: z.number().register(z.globalRegistry, {
    description:
      "Purchases: the VAT that gives no credit, CLP (`Monto Iva No Recuperable`, `detMntIVANoRec`); a `NO_INCLUIR` purchase carries all its VAT here and 0 in `monto_iva`. Sales: 0 (their register has no such column)",
  }),
  codigo_iva_no_recuperable: z.number().int().nullable().register(z.globalRegistry, {
    description:
      "Purchases: the SII's code of why the VAT is not recoverable (`Codigo IVA No Rec.`, `detMntCodNoRec`; e.g. `9` in `NO_INCLUIR`), null when the SII gives none; sales: null",
  }),
  monto_total: z.number(),
  estado: z.string().register(z.globalRegistry, {
    description:
      "The register's state of the document (`REGISTRO`, `PENDIENTE`, `NO_INCLUIR`, `RECLAMADO`): the SII's `dcvEstadoContab` when it sends one; it usually sends null, and then the state the detail was read in (sales: `REGISTRO`)",
  }),
  nota_credito: z.boolean(),
  otros_impuestos: z
    .array(z.object({ codigo: z.number().int(), valor: z.number(), tasa: z.number().nullable() }))
    .optional()
    .register(z.globalRegistry, {
      description:
        "Other taxes of the document (asynchronous download only: the SII's file gives each on a line of its own, joined here to their document)",
    }),
});

export const FileEnvelope = envelope(
  z.object({ solicitud_id: z.number().int(), registros: z.number().int(), documentos: z.array(Document) }).openapi("RcvAsyncDetalle"),
);
