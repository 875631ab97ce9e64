// The one error a bad `auth.cert` produces. Messages name the field and the problem, and never
// quote the input: it holds keys and passphrases.
import { ApiError } from "../platform/errors.ts";

export type CertField = "cert-data" | "pkey-data" | "pfx-data" | "passphrase";

/** `field` null points at `auth.cert` itself. */
export function credentialError(field: CertField | null, message: string): ApiError {
  const path = field ? `auth.cert.${field}` : "auth.cert";
  return new ApiError(400, "AUTH_ERROR", message, { errors: [{ path, location: "body", message }] });
}
