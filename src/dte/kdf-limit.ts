// Password-based key derivation runs in forge's pure JavaScript on the request's thread (~10 µs per
// iteration), and the iteration counts come from the uploaded key or PFX (up to 2^31-1 in the
// format): without a ceiling one request holds the event loop for hours. Every derivation forge
// makes (PBKDF2 of PBES2; the PKCS#12 KDF of the MAC and of PKCS#12 PBE, key and IV) passes through
// the guard below, which refuses it before deriving once a credential's iterations would exceed
// the budget. Entry points as named in node-forge 1.4.3 lib/pbe.js and lib/pkcs12.js.

import forge from "node-forge";
import { type CertField, credentialError } from "./credential-error.ts";

/**
 * Iterations derived for one credential, summed over every derivation (MAC, each encrypted part,
 * key and IV). Real files stay far below: OpenSSL and forge write 2048 per count, Windows exports
 * 2000, Java keytool and the most careful CAs 10 000 (a legacy PFX at 10 000 derives ~50 000 in
 * all). It is also the ceiling of Cloudflare Workers' own WebCrypto PBKDF2. Measured cost at the
 * budget: about 1 s of CPU.
 */
export const MAX_KDF_ITERATIONS = 100_000;

interface Budget {
  field: CertField;
  left: number;
}

/** The credential being read; forge derives synchronously, so no other request interleaves. */
let current: Budget | null = null;
const refusals = new WeakSet<Error>();

function charge(count: unknown): void {
  // forge reads a negative or oversized INTEGER as it comes: charge at least one iteration.
  const iterations = typeof count === "number" ? Math.max(count, 1) : Number.NaN;
  const budget = current;
  // Outside a credential read (the sandbox writing its own files) only the per-count ceiling applies.
  const left = budget ? budget.left : MAX_KDF_ITERATIONS;
  if (!(iterations <= left)) {
    const field = budget?.field ?? "pfx-data";
    const refusal = credentialError(
      field,
      `auth.cert.${field} asks for more key-derivation work than this gateway does: at most ${MAX_KDF_ITERATIONS} iterations in all (MAC and every encrypted part; real certificates use 2048 to 10000 per part)`,
    );
    refusals.add(refusal);
    throw refusal;
  }
  if (budget) budget.left -= iterations;
}

type Pbkdf2 = typeof forge.pkcs5.pbkdf2;
type Pkcs12Kdf = typeof forge.pkcs12.generateKey;

let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const pbkdf2 = forge.pkcs5.pbkdf2;
  const guardedPbkdf2 = ((...args: Parameters<Pbkdf2>) => {
    charge(args[2]);
    return (pbkdf2 as (...a: unknown[]) => unknown)(...args);
  }) as Pbkdf2;
  forge.pkcs5.pbkdf2 = guardedPbkdf2;
  (forge as unknown as { pbkdf2: Pbkdf2 }).pbkdf2 = guardedPbkdf2;

  // pkcs12.js keeps its own reference (p12.generateKey) to pbe.js's generatePkcs12Key: guard both.
  const pbe = (forge.pki as unknown as { pbe: { generatePkcs12Key: Pkcs12Kdf } }).pbe;
  const pkcs12Kdf = pbe.generatePkcs12Key;
  const guardedPkcs12Kdf = ((...args: Parameters<Pkcs12Kdf>) => {
    charge(args[3]);
    return (pkcs12Kdf as (...a: unknown[]) => unknown)(...args);
  }) as Pkcs12Kdf;
  pbe.generatePkcs12Key = guardedPkcs12Kdf;
  forge.pkcs12.generateKey = guardedPkcs12Kdf;
}

/** Runs a synchronous forge read of one credential field under the iteration budget. */
export function withKdfBudget<T>(field: CertField, read: () => T): T {
  install();
  const outer = current;
  current = { field, left: MAX_KDF_ITERATIONS };
  try {
    return read();
  } finally {
    current = outer;
  }
}

/** The same ceiling for a derivation made outside forge (WebCrypto), checked before it runs. */
export function checkKdfIterations(field: CertField, iterations: number): void {
  const outer = current;
  current = { field, left: MAX_KDF_ITERATIONS };
  try {
    charge(iterations);
  } finally {
    current = outer;
  }
}

/** True for the refusal above, so callers that sort forge's errors pass it through unchanged. */
export function isKdfRefusal(error: unknown): error is Error {
  return error instanceof Error && refusals.has(error);
}
