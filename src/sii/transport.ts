// SII_UPSTREAM picks where SII requests go: the real hosts, or the simulator in-process. The
// clients build the same requests either way, with the real SII URLs.

import type { SiiTransport } from "../ports.ts";
import { createSandbox } from "../sandbox/app.ts";

export function parseUpstream(value: string | undefined): "sandbox" | "live" {
  if (value === undefined || value === "" || value === "sandbox") return "sandbox";
  if (value === "live") return "live";
  throw new Error(`SII_UPSTREAM must be "sandbox" or "live", not "${value}"`);
}

export function createTransport(mode: "sandbox" | "live", liveFetch: typeof fetch = fetch): SiiTransport {
  if (mode === "live") return { mode, fetch: (request) => liveFetch(request) };
  const sandbox = createSandbox();
  return { mode, fetch: async (request) => sandbox.fetch(request) };
}
