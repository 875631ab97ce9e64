// Password-based key derivation costs CPU in proportion to an iteration count that comes from the
// uploaded key or PFX (up to 2^31-1 in the format): without a ceiling one request holds the
// thread for hours. Every derivation of one credential (the PKCS#12 MAC, each PKCS#12 PBE key and
// IV, each PBKDF2) is charged to one budget before it runs, and refused once the credential's
// iterations would exceed it. Within the ceiling, iterations beyond what real certificates use
// are paid in quota units, also before the derivation runs.
import { type CertField, credentialError } from "./credential-error.ts";

/**
 * Iterations derived for one credential, summed over every derivation (MAC, each encrypted part,
 * key and IV). Real files stay far below: OpenSSL writes 2048 per count, Windows exports 2000,
 * Java keytool and the most careful CAs 10 000 (a legacy PFX at 10 000 derives ~50 000 in all).
 * It is also the ceiling of Cloudflare Workers' own WebCrypto PBKDF2.
 */
export const MAX_KDF_ITERATIONS = 100_000;

/**
 * Iterations a credential derives at no charge: OpenSSL's legacy export, 2048 for each of a PFX's
 * five derivations (MAC, then key and IV of its two encrypted parts), the most of the usual files
 * (Windows writes 2000, OpenSSL 3's PBES2 2048 for three). 50 000 free let a 1-unit call with a
 * Java keytool file (10 000 a part) cost about 65 ms of CPU, five to six times a median unit
 * (bench/README.md "CPU per quota unit").
 */
export const FREE_KDF_ITERATIONS = 5 * 2048;

/**
 * Beyond the free iterations, one quota unit per started block of this many: 10 000 PKCS#12 SHA-1
 * iterations cost about 9 ms of CPU, under a median unit. Java keytool's 10 000 a part (about
 * 30 000 in all) pays 2; the ceiling, 9.
 */
export const KDF_ITERATIONS_PER_UNIT = 10_000;

/** The units a credential pays for deriving `iterations` in all (0 within the free ones). */
export function kdfFeeUnits(iterations: number): number {
  return Math.ceil(Math.max(0, iterations - FREE_KDF_ITERATIONS) / KDF_ITERATIONS_PER_UNIT);
}

/** Takes `units` from the caller for derivations about to run, or throws (429 when it cannot pay). */
export type KdfFee = (units: number) => Promise<void>;

const refusals = new WeakSet<Error>();
const unpaid = new WeakSet<Error>();

export interface KdfBudget {
  /**
   * Charges one derivation of `count` iterations (at least one) before it runs: throws the
   * refusal over the ceiling, else pays the units it adds beyond the free iterations.
   */
  charge(count: number): Promise<void>;
}

/** A fresh budget for reading one credential field; `pay` takes its fee (none: nothing is charged). */
export function kdfBudget(field: CertField, pay?: KdfFee): KdfBudget {
  let used = 0;
  return {
    async charge(count: number) {
      // A negative or zero count is derived once, as OpenSSL does.
      const iterations = Math.max(count, 1);
      if (!(iterations <= MAX_KDF_ITERATIONS - used)) {
        const refusal = credentialError(
          field,
          `auth.cert.${field} asks for more key-derivation work than this gateway does: at most ${MAX_KDF_ITERATIONS} iterations in all (MAC and every encrypted part; real certificates use 2048 to 10000 per part)`,
        );
        refusals.add(refusal);
        throw refusal;
      }
      const units = kdfFeeUnits(used + iterations) - kdfFeeUnits(used);
      used += iterations;
      if (units > 0 && pay) {
        try {
          await pay(units);
        } catch (error) {
          if (error instanceof Error) unpaid.add(error);
          throw error;
        }
      }
    },
  };
}

/** True for the budget's own errors (the ceiling's refusal, its fee unpaid), so callers that sort errors pass them through unchanged. */
export function isKdfRefusal(error: unknown): error is Error {
  return error instanceof Error && (refusals.has(error) || unpaid.has(error));
}

/** True when the fee could not be taken: the caller's plan, not the credential, stopped the read. */
export function isUnpaidKdfFee(error: unknown): error is Error {
  return error instanceof Error && unpaid.has(error);
}
