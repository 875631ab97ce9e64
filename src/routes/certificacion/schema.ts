// The certification operations' schemas: the company in the path, the write query, and the test
// set answer.
import { z } from "@hono/zod-openapi";
import { DryRun, Rut } from "../../platform/params.ts";
import { PreviewMark } from "../../platform/preview.ts";
import { envelope, pathParams } from "../../platform/schemas.ts";

export const Params = pathParams({
  contribuyente: Rut.meta({ description: "The company in certification (the certificate's holder acts as its representative)" }),
});
export const WriteQuery = z.object({ dry_run: DryRun });
export const TAGS = ["Certification"];

const CaseSchema = z.object({
  caso: z.string().register(z.globalRegistry, { example: "4943173-1" }),
  documento: z.string().register(z.globalRegistry, { example: "FACTURA ELECTRONICA" }),
  tipo: z
    .number()
    .int()
    .nullable()
    .register(z.globalRegistry, { description: "The SII's document type (null for a name this gateway does not know)" }),
  items: z.array(
    z.object({
      nombre: z.string(),
      cantidad: z.number().nullable(),
      unidad: z.string().nullable(),
      precio_unitario: z.number().nullable(),
      descuento_porcentaje: z.number().nullable(),
      exento: z.boolean(),
    }),
  ),
  descuento_global_porcentaje: z.number().nullable(),
  referencia: z.object({ documento: z.string(), tipo: z.number().int().nullable(), caso: z.string() }).nullable(),
  razon_referencia: z.string().nullable(),
});

export const TestSets = envelope(
  z
    .object({
      contribuyente: z.string(),
      texto: z.string().register(z.globalRegistry, { description: "The set as the SII wrote it" }),
      sets: z.array(
        z.object({
          nombre: z.string().register(z.globalRegistry, { example: "SET BASICO" }),
          numero_atencion: z.string(),
          casos: z.array(CaseSchema).register(z.globalRegistry, {
            description:
              "Each case to issue: send each document with `RazonRef` = `CASO <caso>` (invoice sets) or `CASO-<caso>` (the boleta set)",
          }),
          texto: z.string().register(z.globalRegistry, { description: "The set's own text (instructions for sets without cases)" }),
        }),
      ),
      vista_previa: PreviewMark,
    })
    .openapi("CertificationTestSet"),
);
