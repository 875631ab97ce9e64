// Taxpayer credentials in request bodies (`auth.cert`, `auth.pass`). Credentials live in memory
// for the request; only sealed sessions are cached (src/sii/session-service.ts). A PFX may also
// come as `file-data` + `file-pass`, the names the apigateway.cl SDKs send
// (apigatewaycl/apigateway-api-client-php, src/ApiBase.php `setupAuth`).

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
    "file-data": z
      .string()
      .min(1)
      .optional()
      .openapi({ description: "`pfx-data` under the name the apigateway.cl SDKs send: give one of the two" }),
    "file-pass": z
      .string()
      .optional()
      .openapi({ description: "`passphrase` under the name the apigateway.cl SDKs send: give one of the two" }),
  })
  .superRefine((cert, ctx) => {
    for (const [alias, field] of ALIASES) {
      if (cert[alias] !== undefined && cert[field] !== undefined) {
        ctx.addIssue({ code: "custom", path: [alias], message: `is ${field} under another name: give only one of them` });
      }
    }
    const { pfx, passphrase } = pfxOf(cert);
    if (pfx !== undefined) {
      if (cert["cert-data"] !== undefined || cert["pkey-data"] !== undefined) {
        ctx.addIssue({ code: "custom", path: [pfxField(cert)], message: "give either pfx-data or cert-data + pkey-data, not both" });
      }
      if (passphrase === undefined) ctx.addIssue({ code: "custom", path: ["passphrase"], message: "is required with pfx-data" });
      return;
    }
    if (cert["cert-data"] === undefined) ctx.addIssue({ code: "custom", path: ["cert-data"], message: "is required (or give pfx-data)" });
    if (cert["pkey-data"] === undefined) ctx.addIssue({ code: "custom", path: ["pkey-data"], message: "is required with cert-data" });
  })
  .openapi("CertificateCredential");

/** The SDKs' names and the fields they stand for. */
const ALIASES = [
  ["file-data", "pfx-data"],
  ["file-pass", "passphrase"],
] as const;

type CertFields = { "pfx-data"?: string; passphrase?: string; "file-data"?: string; "file-pass"?: string };

function pfxOf(cert: CertFields): { pfx: string | undefined; passphrase: string | undefined } {
  return { pfx: cert["pfx-data"] ?? cert["file-data"], passphrase: cert.passphrase ?? cert["file-pass"] };
}

/** The name the PFX came under, for errors about it. */
function pfxField(cert: CertFields): "pfx-data" | "file-data" {
  return cert["pfx-data"] === undefined && cert["file-data"] !== undefined ? "file-data" : "pfx-data";
}

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
  const { pfx, passphrase } = pfxOf(cert);
  if (pfx !== undefined) return { "pfx-data": pfx, passphrase: passphrase ?? "" };
  return { "cert-data": cert["cert-data"] ?? "", "pkey-data": cert["pkey-data"] ?? "", passphrase };
}

export function parseCertificate(c: Context<AppEnv>, cert: z.output<typeof CertAuth>): Promise<SigningCredential> {
  return parseCertificateCredential(certInput(cert), c.get("deps").clock.now());
}
