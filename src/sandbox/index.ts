// The sandbox as the gateway uses it: the simulator wired to its own CA.
import { createSandbox, type Sandbox } from "./app.ts";
import { sandboxCertificateCheck } from "./certificates.ts";
import { SANDBOX_CA } from "./credentials/index.ts";
import { roughDefault } from "./rough.ts";

/** `roughSeed`: the rough schedule's seed; absent, the process default (set only by the tests' setup), null: tidy. */
export function createDefaultSandbox(
  options: { now?: () => number; hangMs?: number; vehicleRows?: number; roughSeed?: number | null } = {},
): Sandbox {
  const roughSeed = options.roughSeed === undefined ? roughDefault() : options.roughSeed;
  return createSandbox({ ...options, roughSeed, checkCertificate: sandboxCertificateCheck(SANDBOX_CA.cert, options.now) });
}
