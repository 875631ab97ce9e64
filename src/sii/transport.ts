// SII_UPSTREAM picks where SII requests go: the real hosts, or the simulator in-process (its
// transport lives in src/sandbox/ and the entry files wire it). The clients build the same
// requests either way, with the real SII URLs.
import type { SiiTransport } from "../ports/transport.ts";

export function parseUpstream(value: string | undefined): "sandbox" | "live" {
  if (value === undefined || value === "" || value === "sandbox") return "sandbox";
  if (value === "live") return "live";
  throw new Error(`SII_UPSTREAM must be "sandbox" or "live", not "${value}"`);
}

/** Plain `fetch` toward the real SII: no client certificates and no proxies (see the runtime transports). */
export function liveTransport(liveFetch: typeof fetch = fetch): SiiTransport {
  return { mode: "live", fetch: (request) => liveFetch(request) };
}
