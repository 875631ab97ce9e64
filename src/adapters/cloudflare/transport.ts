// The live SII transport on Workers: plain fetch, and the Node egress for what a Worker cannot do
// itself (a TLS client certificate per request, an HTTP proxy).
import type { SiiTransport } from "../../ports.ts";
import { EGRESS_PATH, openEgressAnswer, sealEgressRequest } from "../../sii/egress.ts";
import { NotConfigured } from "../../sii/http.ts";

export interface EgressSettings {
  url?: string;
  secret?: string;
}

export function workerTransport(egress: EgressSettings, send: typeof fetch = fetch, now: () => number = Date.now): SiiTransport {
  return {
    mode: "live",
    async fetch(request, options) {
      const needsEgress = Boolean(options?.clientCertificate || options?.proxy);
      if (!needsEgress) return send(request);
      if (!egress.url || !egress.secret) {
        throw new NotConfigured(
          "EGRESS_URL",
          "This call needs a TLS client certificate or a proxy, which Workers cannot do: set EGRESS_URL and EGRESS_SECRET to a Node egress",
        );
      }
      const sealed = await sealEgressRequest(egress.secret, request, options ?? {}, now());
      const res = await send(new URL(EGRESS_PATH, egress.url).toString(), {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: sealed,
        signal: request.signal,
      });
      const text = await res.text();
      const answer = res.ok ? await openEgressAnswer(egress.secret, text) : null;
      if (!answer) throw new Error(`egress refused the call (HTTP ${res.status}): ${text.slice(0, 200)}`);
      return answer;
    },
  };
}
