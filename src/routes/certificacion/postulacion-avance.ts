// POST /api/v1/sii/certificacion/postulacion/avance/{contribuyente}: each test set's state at the SII.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { applicationProgress } from "../../services/certificacion.ts";
import { CertAuthBody } from "../credentials.ts";
import { certifying } from "./certifying.ts";
import { Params, TAGS } from "./schema.ts";

export const Progress = envelope(
  z
    .object({
      contribuyente: z.string(),
      sets: z.array(
        z.object({
          set: z.string(),
          numero_atencion: z.string(),
          estado: z.string().register(z.globalRegistry, {
            description:
              "The SII's state (`EN REVISION`, `REVISADO CONFORME`, `ENVIO CON ERRORES O REPAROS`, …), or `SIN DECLARAR` / `DECLARADO` for a set still to declare",
          }),
          track_id: z.string().nullable(),
          observaciones: z.string().nullable().register(z.globalRegistry, { description: "The SII's reason when rejected" }),
        }),
      ),
    })
    .openapi("CertificationProgress"),
);

export function registerCertificacionPostulacionAvance(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/certificacion/postulacion/avance/{contribuyente}",
      tags: TAGS,
      summary: "Progress of the certification",
      description: "Each test set with its state at the SII (pe_avance1, then pe_avance2 with the company).",
      request: { params: Params, body: jsonBody(CertAuthBody) },
      responses: { 200: jsonContent(Progress, "Each set's state"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      return ok(c, await applicationProgress(callerOf(c), await certifying(c)));
    },
  );
}
