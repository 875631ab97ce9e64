// Taxpayer credentials in request bodies (`auth.cert`, `auth.pass`) and the SII sessions opened
// with them. Credentials live in memory for the request; only sealed sessions are cached.

import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type CertInput, parseCertificateCredential, type SigningCredential } from "../dte/credentials.ts";
import type { AppEnv } from "../platform/context.ts";
import { Rut } from "../platform/params.ts";
import type { CookieJar } from "../sii/cookies.ts";
import type { Ambiente } from "../sii/hosts.ts";
import type { SiiContext } from "../sii/http.ts";
import { certificateLogin, claveLogin } from "../sii/login.ts";
import { type SessionEnv, withWebSession } from "../sii/sessions.ts";
import { withSoapToken } from "../sii/token.ts";

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

/** Least time between two SII calls for one taxpayer (the SII bans bursts); short against the sandbox. */
export function pacingMs(c: Context<AppEnv>): number {
  return c.get("deps").sii.mode === "live" ? 1200 : 0;
}

function sessionEnv(c: Context<AppEnv>, ctx: SiiContext): SessionEnv {
  const { deps } = c.var;
  return { ctx, sessions: deps.sessions, secretKey: deps.config.secretKey, now: () => deps.clock.now(), pacingMs: pacingMs(c) };
}

function account(c: Context<AppEnv>): string {
  const principal = c.get("principal");
  if (!principal) throw new Error("a session needs a principal");
  return principal.account;
}

/** Runs `use` in the taxpayer's RUT + clave session for this account (a wrong clave never reuses one). */
export function withClaveSession<T>(
  c: Context<AppEnv>,
  ctx: SiiContext,
  credential: { rut: string; clave: string },
  use: (jar: CookieJar) => Promise<T>,
  referencia?: string,
): Promise<T> {
  const owner = { account: account(c), rut: credential.rut, ambiente: "0" as const, kind: "clave" as const, proof: credential.clave };
  const login = () => claveLogin(ctx, credential, referencia, () => c.get("deps").clock.now().getTime());
  return withWebSession(sessionEnv(c, ctx), owner, login, use);
}

/** Runs `use` in the certificate holder's SII web session for this account (cached, sealed, paced). */
export function withCertificateSession<T>(
  c: Context<AppEnv>,
  ctx: SiiContext,
  credential: SigningCredential,
  ambiente: Ambiente,
  use: (jar: CookieJar) => Promise<T>,
  actingFor?: string,
): Promise<T> {
  const { deps } = c.var;
  // A session as a represented taxpayer is a different session from the holder's own.
  const rut = actingFor ?? credential.rut;
  const owner = { account: account(c), rut, ambiente, kind: "cert" as const, proof: `${credential.fingerprint}:${credential.rut}` };
  const certificate = { certificatePem: credential.certificatePem, privateKeyPem: credential.privateKeyPkcs8Pem };
  const login = () =>
    certificateLogin(ctx, certificate, {
      now: () => deps.clock.now().getTime(),
      actingFor: actingFor === credential.rut ? undefined : actingFor,
    });
  return withWebSession(sessionEnv(c, ctx), owner, login, use);
}

/** Runs `use` with the SII's token for this certificate and account: DTE (SOAP) or boleta (REST); cached, renewed once when refused. */
export function withDteToken<T>(
  c: Context<AppEnv>,
  ctx: SiiContext,
  credential: SigningCredential,
  ambiente: Ambiente,
  use: (token: string) => Promise<T>,
  service: "dte" | "boleta" = "dte",
): Promise<T> {
  const owner = { account: account(c), fingerprint: credential.fingerprint, signer: credential };
  return withSoapToken(ctx, owner, ambiente, () => c.get("deps").clock.now().getTime(), use, service);
}
