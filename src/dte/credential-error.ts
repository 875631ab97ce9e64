// The one error a bad `auth.cert` produces. Messages name the field and the problem, and never
// quote the input: it holds keys and passphrases. The API answers it as 400 AUTH_ERROR.
import { DteError } from "./errors.ts";

export type CertField = "cert-data" | "pkey-data" | "pfx-data" | "passphrase";

/** `field` null points at `auth.cert` itself. */
export function credentialError(field: CertField | null, message: string): DteError {
  const path = field ? `auth.cert.${field}` : "auth.cert";
  return new DteError("bad_credential", message, [{ path, location: "body", message }]);
}
