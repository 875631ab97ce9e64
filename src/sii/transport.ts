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

export function createTransport(mode: "sandbox" | "live", liveFetch: typeof fetch = fetch, sandbox?: Sandbox): SiiTransport {
  if (mode === "live") return { mode, fetch: (request) => liveFetch(request) };
  const simulator = sandbox ?? createDefaultSandbox();
  return { mode, sandbox: simulator, fetch: (request) => simulator.fetch(request) };
}
