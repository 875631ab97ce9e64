// The request's credentials, for every operation that takes `auth`: their schemas (a clave:
// credential-schemas.ts; a certificate's three forms: certificate-schema.ts), exported from here
// as the routes import them, and the certificate read with its key-derivation fee.

import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type CertInput, parseCertificateCredential, type SigningCredential } from "../certificates/credentials.ts";
import { FREE_KDF_ITERATIONS } from "../certificates/kdf-limit.ts";
import { chargeUnits } from "../platform/charge.ts";
import type { AppEnv } from "../platform/context.ts";
import { isDryRun } from "../platform/dry-run.ts";
import type { RcvLogin } from "../services/rcv.ts";
import { CertAuth } from "./certificate-schema.ts";
import type { PassOrCertAuth } from "./credential-schemas.ts";

export { CertAuthBody, PassOnlyAuth, PassOrCertAuth } from "./credential-schemas.ts";
export { CertAuth };

/** The certificate as the certificates layer reads it: the SDKs' names (`file-data`, `file-pass`) for the fields they stand for. */
export function certInput(cert: z.output<typeof CertAuth>): CertInput {
  const pfx = cert["pfx-data"] ?? cert["file-data"];
  if (pfx !== undefined) return { "pfx-data": pfx, passphrase: cert.passphrase ?? cert["file-pass"] ?? "" };
  return { "cert-data": cert["cert-data"] ?? "", "pkey-data": cert["pkey-data"] ?? "", passphrase: cert.passphrase };
}

/**
 * The request's certificate, for every operation that takes `auth.cert`: a credential that derives
 * more than FREE_KDF_ITERATIONS pays its fee into this call's charge, before those derivations run.
 */
export function parseCertificate(c: Context<AppEnv>, cert: z.output<typeof CertAuth>): Promise<SigningCredential> {
  // A preview consumes no quota (the interface's rule for dry_run): its derivations stay bounded by the ceiling alone.
  const pay = isDryRun(c)
    ? async () => {}
    : (units: number) => chargeUnits(c, units, `deriving the keys of auth.cert (over ${FREE_KDF_ITERATIONS} iterations)`);
  return parseCertificateCredential(certInput(cert), c.get("deps").clock.now(), pay);
}

/** The request's login for what takes a clave or a certificate (`PassOrCertAuth`): the clave, or the certificate read now. */
export async function loginOf(c: Context<AppEnv>, auth: z.output<typeof PassOrCertAuth>): Promise<RcvLogin> {
  if (auth.pass) return { pass: auth.pass };
  if (!auth.cert) throw new Error("PassOrCertAuth guarantees one credential");
  return { certificate: await parseCertificate(c, auth.cert) };
}
