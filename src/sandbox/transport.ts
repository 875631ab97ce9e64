// The sandbox as an SII transport, in-process: the clients build the same requests as toward the
// real SII, and the client certificate reaches the simulator directly, as TLS would present it.
import type { SiiTransport } from "../ports/transport.ts";
import type { Sandbox } from "./app.ts";
import { sandboxControls } from "./controls.ts";
import { createDefaultSandbox } from "./index.ts";

const simulators = new WeakMap<SiiTransport, Sandbox>();

export function sandboxTransport(sandbox: Sandbox = createDefaultSandbox()): SiiTransport {
  const transport: SiiTransport = {
    mode: "sandbox",
    sandbox: sandboxControls(sandbox),
    fetch: (request, options) => sandbox.fetch(request, { clientCertificatePem: options?.clientCertificate?.certificatePem }),
  };
  simulators.set(transport, sandbox);
  return transport;
}

/** The simulator behind a sandbox transport, for tests and tools that inspect what it received. */
export function simulatorOf(transport: SiiTransport): Sandbox {
  const sandbox = simulators.get(transport);
  if (!sandbox) throw new Error(`not a sandbox transport (mode ${transport.mode})`);
  return sandbox;
}
