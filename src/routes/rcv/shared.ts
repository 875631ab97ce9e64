// What the RCV operations share: their credentials (RUT + clave or certificate), the period rule,
// the purchase states, and the session they run in.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { santiagoDate } from "../../lib/dates.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ApiError } from "../../platform/errors.ts";
import type { CookieJar } from "../../sii/cookies.ts";
import type { SiiContext } from "../../sii/http.ts";
import { CertAuth, PassAuth, parseCertificate, withCertificateSession, withClaveSession } from "../credentials.ts";

export { PassAuth };

/** The SII's first RCV period. */
export const FIRST_PERIOD = "201705";
export const ESTADOS = ["REGISTRO", "PENDIENTE", "NO_INCLUIR", "RECLAMADO"] as const;

export const Estado = z.enum(ESTADOS, { error: `must be one of ${ESTADOS.join(", ")}` }).openapi({ example: "REGISTRO" });

export const RcvAuthBody = z
  .object({
    auth: z
      .object({ pass: PassAuth.optional(), cert: CertAuth.optional() })
      .refine((a) => (a.pass === undefined) !== (a.cert === undefined), { error: "give either auth.pass (RUT + clave) or auth.cert" }),
  })
  .openapi("RcvAuth", { example: { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } } });

/** `periodo` must be a month the RCV has: from 201705 up to the current month (in Chile). */
export function checkPeriodo(c: Context<AppEnv>, periodo: string): void {
  const current = santiagoDate(c.var.deps.clock.now()).slice(0, 7).replace("-", "");
  if (periodo < FIRST_PERIOD || periodo > current) {
    throw new ApiError(400, "VALIDATION_ERROR", `periodo must be between ${FIRST_PERIOD} and ${current}`, {
      errors: [{ path: "periodo", location: "path", message: `must be a month from ${FIRST_PERIOD} to ${current}` }],
    });
  }
}

/** Runs `use` in a session as `rut`: the clave's own, or a certificate's (holder or representative). */
export async function withRcvSession<T>(
  c: Context<AppEnv>,
  ctx: SiiContext,
  rut: string,
  auth: z.output<typeof RcvAuthBody>["auth"],
  use: (jar: CookieJar) => Promise<T>,
): Promise<T> {
  if (auth.pass) {
    if (auth.pass.rut !== rut) {
      throw new ApiError(403, "AUTH_ERROR", `The clave is ${auth.pass.rut}'s; it cannot open ${rut}'s register`, {
        errors: [{ path: "auth.pass.rut", location: "body", message: `must be ${rut} to read its register with a clave` }],
      });
    }
    return withClaveSession(c, ctx, auth.pass, use, "https://www4.sii.cl/consdcvinternetui/");
  }
  if (!auth.cert) throw new Error("RcvAuthBody guarantees one credential");
  const credential = await parseCertificate(c, auth.cert);
  return withCertificateSession(c, ctx, credential, "0", use, rut);
}

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
