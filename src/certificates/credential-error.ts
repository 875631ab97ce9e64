// The one error a bad `auth.cert` produces. Messages name the field and the problem, and never
// quote the input: it holds keys and passphrases. platform/failure.ts answers it as 400 AUTH_ERROR,
// so this folder knows nothing of HTTP.

export type CertField = "cert-data" | "pkey-data" | "pfx-data" | "passphrase";

export class CredentialError extends Error {
  /** Dotted path of the field at fault: `auth.cert.<field>`, or `auth.cert` itself. */
  readonly path: string;

  constructor(path: string, message: string) {
    super(message);
    this.name = "CredentialError";
    this.path = path;
  }
}

/** `field` null points at `auth.cert` itself. */
export function credentialError(field: CertField | null, message: string): CredentialError {
  return new CredentialError(field ? `auth.cert.${field}` : "auth.cert", message);
}
