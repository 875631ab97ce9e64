// The exchange operations' schemas: the document a path names and the query answers.
import { z } from "@hono/zod-openapi";
import { Ambiente, IntegerParam, Rut } from "../../platform/params.ts";
import { envelope, pathParams } from "../../platform/schemas.ts";
import { Folio } from "../folio-fields.ts";

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
