// The taxpayer's credentials in request bodies (`auth`): a clave (`auth.pass`), a certificate
// (`auth.cert`, its three forms in certificate-schema.ts), or either of them. Credentials live in
// memory for the request; only sealed sessions are cached (src/sii/session-service.ts).

import { z } from "@hono/zod-openapi";
import { Rut } from "../platform/params.ts";
import { explainUnknown } from "../platform/unknown-fields.ts";
import { CertAuth } from "./certificate-schema.ts";
import { EXAMPLE_CLAVE, EXAMPLE_PFX } from "./example-credentials.ts";

export const CertAuthBody = z
  .object({
    auth: explainUnknown(
      z.strictObject({ cert: CertAuth }).register(z.globalRegistry, { description: "The taxpayer's credentials: a certificate" }),
      { pass: "this operation takes a certificate only (auth.cert), not a clave" },
    ),
  })
  .openapi("CertificateAuth", { example: { auth: { cert: EXAMPLE_PFX } } });

export const PassAuth = z
  .strictObject({
    rut: Rut.meta({ description: "The taxpayer's RUT, `XXXXXXXX-K` (check digit verified)", example: EXAMPLE_CLAVE.rut }),
    clave: z.string().min(1, { error: "is required" }).max(200).register(z.globalRegistry, {
      description: "Clave tributaria, 1 to 200 characters (never stored or logged)",
      example: EXAMPLE_CLAVE.clave,
    }),
  })
  .openapi("ClaveCredential", { example: EXAMPLE_CLAVE });

/** `auth` with a clave only. */
export const PassOnlyAuth = explainUnknown(
  z.strictObject({ pass: PassAuth }).register(z.globalRegistry, { description: "The taxpayer's credentials: RUT and clave tributaria" }),
  { cert: "this operation takes a clave only (auth.pass: RUT and clave tributaria), not a certificate" },
);

/**
 * `auth` with either a clave or a certificate, exactly one: the server refuses both and neither.
 * Each `oneOf` branch names its key's schema and forbids the other's (`not: {}`), so generated types
 * get it too: openapi-typescript makes it `{ pass: … } | { cert: … }`, where branches of `required`
 * alone gave `unknown | unknown` and `auth: {}` compiled.
 */
export const PassOrCertAuth = z
  .strictObject({ pass: PassAuth.optional(), cert: CertAuth.optional() })
  .refine((a) => (a.pass === undefined) !== (a.cert === undefined), { error: "give either auth.pass (RUT + clave) or auth.cert" })
  .register(z.globalRegistry, {
    description: "The taxpayer's credentials: `pass` (RUT + clave) or `cert` (a certificate), exactly one of them",
    oneOf: [
      { type: "object", properties: { pass: { $ref: "#/components/schemas/ClaveCredential" }, cert: { not: {} } }, required: ["pass"] },
      {
        type: "object",
        properties: { cert: { $ref: "#/components/schemas/CertificateCredential" }, pass: { not: {} } },
        required: ["cert"],
      },
    ],
  });
