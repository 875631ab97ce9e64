// POST /api/v1/sii/bhe/emitidas/email/{codigo}: have the SII e-mail an issued BHE again.
// Counted on every call (each one sends a mail); Idempotency-Key honoured.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { emailAddress } from "../../platform/validation.ts";
import { resendIssuedBhe } from "../../services/bhe.ts";
import { PassOnlyAuth } from "../credentials.ts";

const Params = z.object({
  codigo: z
    .string()
    .max(40)
    .regex(/^[A-Za-z0-9]{6,40}$/, { error: "must be the BHE's code (letters and digits, as the SII lists it)" })
    .openapi({
      param: { name: "codigo", in: "path" },
      description: "The BHE's code as the SII lists it among the issued slips: 6 to 40 letters and digits",
      example: "222222220000041F99ED",
    }),
});

const Body = z
  .object({
    auth: PassOnlyAuth,
    destinatario: z.object({
      email: emailAddress().meta({ description: "The address the SII mails the slip to (at most 254 characters)" }),
      nombre: z
        .string()
        .max(200)
        .optional()
        .register(z.globalRegistry, { description: "For your records; the SII's form takes only the address" }),
    }),
  })
  .openapi("BheEmailRequest", {
    example: { auth: { pass: { rut: "22222222-2", clave: "sandbox22" } }, destinatario: { email: "pagos@cliente.cl", nombre: "Cliente" } },
  });

export const Resent = envelope(
  z
    .object({
      mensaje: z.string().register(z.globalRegistry, { description: "The SII's confirmation text" }),
      destinatario: z.string(),
      nombre_receptor: z.string().register(z.globalRegistry, { description: "The recipient's name on the SII's pre-filled form" }),
      nro_boleta: z.string(),
    })
    .openapi("BheResent"),
);

export function registerBheEmitidasEmail(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/bhe/emitidas/email/{codigo}",
      tags: ["BHE"],
      summary: "Resend an issued BHE by e-mail",
      description:
        "Has the SII e-mail an issued boleta de honorarios electrónica (BHE) of the clave's taxpayer again, through its own resend form. The SII sends the mail; its delivery is not controlled by the gateway. Every call counts, resends included; 404 when the taxpayer has no issued BHE with that code.",
      request: { params: Params, body: jsonBody(Body) },
      responses: { 200: jsonContent(Resent, "The SII's confirmation"), ...errorResponses([400, 404, 422, 502]) },
    }),
    { scope: "sii:write", weight: 2, write: true },
    async (c) => {
      const { codigo } = c.req.valid("param");
      const body = c.req.valid("json");
      const result = await resendIssuedBhe(callerOf(c), body.auth.pass, codigo, body.destinatario.email);
      return ok(c, result, result.mensaje);
    },
  );
}
