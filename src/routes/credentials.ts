// Taxpayer credentials in request bodies (`auth.cert`, `auth.pass`). Credentials live in memory
// for the request; only sealed sessions are cached (src/sii/session-service.ts).

import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type CertInput, parseCertificateCredential, type SigningCredential } from "../dte/credentials.ts";
import type { AppEnv } from "../platform/context.ts";
import { Rut } from "../platform/params.ts";

export const CertAuth = z
  .object({
    "cert-data": z.string().min(1).optional().openapi({ description: "Certificate, PEM (with its chain if you have it)" }),
    "pkey-data": z.string().min(1).optional().openapi({ description: "Private key, PEM (PKCS#8, PKCS#1 or encrypted PKCS#8)" }),
    "pfx-data": z.string().min(1).optional().openapi({ description: "PKCS#12 container, base64" }),
    passphrase: z.string().optional().openapi({ description: "Of the encrypted key or of the PFX" }),
  })
  .superRefine((cert, ctx) => {
    if (cert["pfx-data"] !== undefined) {
      if (cert["cert-data"] !== undefined || cert["pkey-data"] !== undefined) {
        ctx.addIssue({ code: "custom", path: ["pfx-data"], message: "give either pfx-data or cert-data + pkey-data, not both" });
      }
      if (cert.passphrase === undefined) ctx.addIssue({ code: "custom", path: ["passphrase"], message: "is required with pfx-data" });
      return;
    }
    if (cert["cert-data"] === undefined) ctx.addIssue({ code: "custom", path: ["cert-data"], message: "is required (or give pfx-data)" });
    if (cert["pkey-data"] === undefined) ctx.addIssue({ code: "custom", path: ["pkey-data"], message: "is required with cert-data" });
  })
  .openapi("CertificateCredential");

export const CertAuthBody = z.object({ auth: z.object({ cert: CertAuth }) }).openapi("CertificateAuth", {
  example: { auth: { cert: { "cert-data": "<the certificate, PEM text>", "pkey-data": "<its private key, PEM text>" } } },
});

export const PassAuth = z
  .object({
    rut: Rut.openapi({ description: "The taxpayer's RUT, `XXXXXXXX-K`" }),
    clave: z.string().min(1, { error: "is required" }).max(200).openapi({ description: "Clave tributaria (never stored or logged)" }),
  })
  .openapi("ClaveCredential");

export function certInput(cert: z.output<typeof CertAuth>): CertInput {
  if (cert["pfx-data"] !== undefined) return { "pfx-data": cert["pfx-data"], passphrase: cert.passphrase ?? "" };
  return { "cert-data": cert["cert-data"] ?? "", "pkey-data": cert["pkey-data"] ?? "", passphrase: cert.passphrase };
}

export function parseCertificate(c: Context<AppEnv>, cert: z.output<typeof CertAuth>): Promise<SigningCredential> {
  return parseCertificateCredential(certInput(cert), c.get("deps").clock.now());
}
