// What the DTE engine refuses, in its own terms: a document that cannot be fixed (a certificate
// that cannot be used is src/certificates/credential-error.ts). platform/failure.ts turns it into
// the API's 400 VALIDATION_ERROR, so the engine knows nothing of HTTP.

export interface DteFieldError {
  /** Dotted path of the offending field, e.g. `dte.Encabezado.Emisor.RUTEmisor`. */
  path: string;
  location: "body";
  message: string;
}

export type DteErrorKind = "invalid_document";

export class DteError extends Error {
  readonly kind: DteErrorKind;
  readonly errors: DteFieldError[];
  readonly details?: Record<string, unknown>;

  constructor(kind: DteErrorKind, message: string, errors: DteFieldError[], details?: Record<string, unknown>) {
    super(message);
    this.name = "DteError";
    this.kind = kind;
    this.errors = errors;
    this.details = details;
  }
}
