// The sandbox as the gateway uses it: the simulator wired to its own CA.
import { createSandbox, type Sandbox } from "./app.ts";
import { sandboxCertificateCheck } from "./certificates.ts";
import { SANDBOX_CA } from "./credentials/index.ts";

export function createDefaultSandbox(options: { now?: () => number; hangMs?: number; vehicleRows?: number } = {}): Sandbox {
  return createSandbox({ ...options, checkCertificate: sandboxCertificateCheck(SANDBOX_CA.cert, options.now) });
}
