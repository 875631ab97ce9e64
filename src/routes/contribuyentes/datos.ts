// POST /api/v1/sii/dte/contribuyentes/datos/{contribuyente}: a taxpayer's private data, with its
// own certificate or that of its electronic representative.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { encodeLatin1 } from "../../lib/latin1.ts";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { contentDispositionHeader, fileAnswer } from "../../platform/file-answer.ts";
import { registerOperation } from "../../platform/operation.ts";
import { Ambiente, Formato, Rut } from "../../platform/params.ts";
import { BYTES, envelope, errorResponses, jsonBody, pathParams } from "../../platform/schemas.ts";
import { taxpayerDataOf, taxpayerPageOf } from "../../services/contribuyentes.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";

const Params = pathParams({
  contribuyente: Rut.meta({
    description:
      "The taxpayer whose data is read, `XXXXXXXX-K`: the certificate's holder or a company it represents; the check digit is verified by the server (modulo 11, which a pattern cannot express)",
    example: "76192083-9",
  }),
});
const Query = z.object({ ambiente: Ambiente, formato: Formato(["json", "html"]) });

export const Data = envelope(
  z
    .object({
      rut: z.string().register(z.globalRegistry, { example: "76192083-9" }),
      razon_social: z.string(),
      direccion: z.string().register(z.globalRegistry, { description: "Main address: street and number, comuna" }),
      telefono: z.string(),
      email: z.string(),
      giros: z.array(z.string()).register(z.globalRegistry, { description: "Business lines (economic activities)" }),
    })
    .openapi("TaxpayerPrivateData"),
);

export function registerContribuyentesDatos(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/dte/contribuyentes/datos/{contribuyente}",
      tags: ["Taxpayers"],
      summary: "Private data of a taxpayer",
      description:
        "With the taxpayer's certificate, or its electronic representative's (403 `AUTH_ERROR` otherwise). `formato=html` returns the SII's page as received (ISO-8859-1).",
      request: { params: Params, query: Query, body: jsonBody(CertAuthBody) },
      responses: {
        200: {
          description: "The taxpayer's data, or the SII's page (`text/html`, ISO-8859-1, inline as `contribuyente-<RUT>.html`)",
          headers: contentDispositionHeader('inline; filename="contribuyente-76192083-9.html"'),
          content: { "application/json": { schema: Data }, "text/html": { schema: BYTES } },
        },
        ...errorResponses([400, 404, 422, 502, 503]),
      },
    }),
    { scope: "sii:read", weight: 2 },
    async (c) => {
      const { contribuyente } = c.req.valid("param");
      const { ambiente, formato } = c.req.valid("query");
      const who = { credential: await parseCertificate(c, c.req.valid("json").auth.cert), ambiente, contribuyente };
      if (formato === "html") {
        const page = await taxpayerPageOf(callerOf(c), who);
        const file = { type: "text/html; charset=ISO-8859-1", disposition: "inline", name: `contribuyente-${contribuyente}.html` } as const;
        return fileAnswer(c, encodeLatin1(page), file);
      }
      return ok(c, await taxpayerDataOf(callerOf(c), who));
    },
  );
}
