// POST /api/v1/sii/certificacion/contribuyentes/datos/{contribuyente}: the company's data in the
// certification environment.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { companyData } from "../../services/certificacion.ts";
import { CertAuthBody } from "../credentials.ts";
import { certifying } from "./certifying.ts";
import { Params, TAGS } from "./schema.ts";

export const Data = envelope(
  z
    .object({
      rut: z.string(),
      razon_social: z.string(),
      resolucion: z.object({ numero: z.number().int(), fecha: z.string().nullable() }).register(z.globalRegistry, {
        description: "The resolution to put in the carátula while certifying (number 0 and the date the SII gives)",
      }),
      emails: z.object({ contacto_sii: z.string().nullable(), intercambio: z.string().nullable() }),
      software: z.string().nullable(),
      estado: z.string(),
    })
    .openapi("CertificationData"),
);

export function registerCertificacionContribuyentesDatos(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/certificacion/contribuyentes/datos/{contribuyente}",
      tags: TAGS,
      summary: "The company's data in the certification environment",
      description:
        "ad_empresa1, then ad_empresa2 with the company: its resolution (number 0 and the application's date while certifying), contact e-mail and software. `estado` is `EN CERTIFICACION` (resolution 0), `AUTORIZADO` (a resolution number) or `SIN RESOLUCION` (no resolution rows).",
      request: { params: Params, body: jsonBody(CertAuthBody) },
      responses: { 200: jsonContent(Data, "The company's data"), ...errorResponses([400, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: 2 },
    async (c) => {
      return ok(c, await companyData(callerOf(c), await certifying(c)));
    },
  );
}
