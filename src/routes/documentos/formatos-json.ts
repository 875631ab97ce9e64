// POST /api/v1/platform/dte/formatos/json: a document given as JSON with the SII's tag names,
// returned normalized (defaults, line amounts, discounts, taxes, IVA, totals) with the list of
// what was filled in or computed. Nothing is sent anywhere.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { type Node, normalizeDte, SUPPORTED_TYPES } from "../../dte/normalize/normalize.ts";
import { santiagoDate } from "../../lib/dates.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";

const Body = z
  .object({
    dte: z
      .object({
        Encabezado: z.object({ IdDoc: z.object({ TipoDTE: z.coerce.number().int() }).passthrough() }).passthrough(),
      })
      .passthrough()
      .openapi({
        description:
          "The document with the SII's tag names (`Encabezado`, `Detalle`, `DscRcgGlobal`, `Referencia`, …); single objects are accepted where lists are expected",
      }),
  })
  .openapi("NormalizeRequest", {
    example: {
      dte: {
        Encabezado: {
          IdDoc: { TipoDTE: 33, Folio: 1 },
          Emisor: {
            RUTEmisor: "76192083-9",
            RznSoc: "Comercial Sandbox SpA",
            GiroEmis: "Comercio",
            Acteco: 479100,
            DirOrigen: "Av. Providencia 1234",
            CmnaOrigen: "Providencia",
          },
          Receptor: {
            RUTRecep: "60803000-K",
            RznSocRecep: "Servicio de Impuestos Internos",
            GiroRecep: "Gobierno",
            DirRecep: "Teatinos 120",
            CmnaRecep: "Santiago",
          },
        },
        Detalle: [{ NmbItem: "Conectores RJ45", QtyItem: 450, PrcItem: 70 }],
      },
    },
  });

const Normalized = envelope(
  z
    .object({
      dte: z.record(z.string(), z.unknown()).openapi({ description: "The normalized document (lists always as arrays)" }),
      warnings: z.array(z.string()).openapi({ description: "Each field filled in or computed, as `path = value`" }),
    })
    .openapi("NormalizedDte"),
);

export function registerFormatosJson(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/formatos/json",
      tags: ["Documents"],
      summary: "Normalize a document to the standard format",
      request: { body: jsonBody(Body) },
      responses: { 200: jsonContent(Normalized, "The normalized document"), ...errorResponses([400, 422]) },
    }),
    async (c) => {
      const { dte } = valid(c, "json", Body);
      const tipo = dte.Encabezado.IdDoc.TipoDTE;
      if (!SUPPORTED_TYPES.includes(tipo)) {
        throw new ApiError(400, "VALIDATION_ERROR", `Document type ${tipo} is not one this gateway normalizes`, {
          errors: [{ path: "dte.Encabezado.IdDoc.TipoDTE", location: "body", message: `must be one of ${SUPPORTED_TYPES.join(", ")}` }],
        });
      }
      return ok(c, normalizeDte(dte as Node, santiagoDate(c.var.deps.clock.now())));
    },
  );
}
