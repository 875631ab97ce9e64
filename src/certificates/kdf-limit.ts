// Password-based key derivation costs CPU in proportion to an iteration count that comes from the
// uploaded key or PFX (up to 2^31-1 in the format): without a ceiling one request holds the
// thread for hours. Every derivation of one credential (the PKCS#12 MAC, each PKCS#12 PBE key and
// IV, each PBKDF2) is charged to one budget before it runs, and refused once the credential's
// iterations would exceed it.
import { type CertField, credentialError } from "./credential-error.ts";

/**
 * Iterations derived for one credential, summed over every derivation (MAC, each encrypted part,
 * key and IV). Real files stay far below: OpenSSL writes 2048 per count, Windows exports 2000,
 * Java keytool and the most careful CAs 10 000 (a legacy PFX at 10 000 derives ~50 000 in all).
 * It is also the ceiling of Cloudflare Workers' own WebCrypto PBKDF2.
 */
export const MAX_KDF_ITERATIONS = 100_000;

const refusals = new WeakSet<Error>();

export interface KdfBudget {
  /** Charges one derivation of `count` iterations (at least one), or throws the refusal. */
  charge(count: number): void;
}

/** A fresh budget for reading one credential field. */
export function kdfBudget(field: CertField): KdfBudget {
  let left = MAX_KDF_ITERATIONS;
  return {
    charge(count: number) {
      // A negative or zero count is derived once, as OpenSSL does.
      const iterations = Math.max(count, 1);
      if (!(iterations <= left)) {
        const refusal = credentialError(
          field,
          `auth.cert.${field} asks for more key-derivation work than this gateway does: at most ${MAX_KDF_ITERATIONS} iterations in all (MAC and every encrypted part; real certificates use 2048 to 10000 per part)`,
        );
        refusals.add(refusal);
        throw refusal;
      }
      left -= iterations;
    },
  };
}

/** True for the refusal above, so callers that sort errors pass it through unchanged. */
export function isKdfRefusal(error: unknown): error is Error {
  return error instanceof Error && refusals.has(error);
}
