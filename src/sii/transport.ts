// SII_UPSTREAM picks where SII requests go: the real hosts, or the simulator in-process. The
// clients build the same requests either way, with the real SII URLs.
import type { SiiTransport } from "../ports.ts";
import type { Sandbox } from "../sandbox/app.ts";
import { createDefaultSandbox } from "../sandbox/index.ts";

export function parseUpstream(value: string | undefined): "sandbox" | "live" {
  if (value === undefined || value === "" || value === "sandbox") return "sandbox";
  if (value === "live") return "live";
  throw new Error(`SII_UPSTREAM must be "sandbox" or "live", not "${value}"`);
}

/** The sandbox in-process: it gets the client certificate directly, as TLS would present it. */
export function sandboxTransport(sandbox: Sandbox = createDefaultSandbox()): SiiTransport {
  return {
    mode: "sandbox",
    sandbox,
    fetch: (request, options) => sandbox.fetch(request, { clientCertificatePem: options?.clientCertificate?.certificatePem }),
  };
}

/** Plain `fetch` toward the real SII: no client certificates and no proxies (see the runtime transports). */
export function createTransport(mode: "sandbox" | "live", liveFetch: typeof fetch = fetch, sandbox?: Sandbox): SiiTransport {
  if (mode === "sandbox") return sandboxTransport(sandbox);
  return { mode, fetch: (request) => liveFetch(request) };
}
