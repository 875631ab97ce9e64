// The live SII transport on Workers: plain fetch, and the Node egress for what a Worker cannot do
// itself (a TLS client certificate per request, an HTTP proxy).
import { hostClass, ProxyFailure, parseProxyUrl } from "../../lib/address-policy.ts";
import type { ProxyRoute, SiiTransport } from "../../ports/transport.ts";
import {
  EGRESS_AUTH_HEADER,
  EGRESS_PATH,
  EGRESS_PROXY_FAILURE_HEADER,
  egressAuth,
  openEgressAnswer,
  sealEgressRequest,
} from "../../sii/egress.ts";
import { NotConfigured } from "../../sii/http.ts";

export interface EgressSettings {
  url?: string;
  secret?: string;
  /** Operator setting (ALLOW_PRIVATE_PROXY): proxies on inside addresses. Off by default. */
  allowPrivateProxy?: boolean;
}

/**
 * What a Worker can judge itself: it cannot resolve names, so literal addresses and names that are
 * obviously internal are refused here, and the Node egress judges every resolved address again
 * when it connects.
 */
function checkProxyLiteral(proxy: ProxyRoute, allowPrivate: boolean): void {
  const parsed = parseProxyUrl(proxy.url);
  if (!parsed) throw new ProxyFailure("not_allowed", "reserved");
  const refused = allowPrivate ? null : hostClass(parsed.hostname);
  if (refused) throw new ProxyFailure("not_allowed", refused);
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
      if (options?.proxy) checkProxyLiteral(options.proxy, egress.allowPrivateProxy === true);
      const sealed = await sealEgressRequest(egress.secret, request, options ?? {}, now());
      const res = await send(new URL(EGRESS_PATH, egress.url).toString(), {
        method: "POST",
        headers: { "content-type": "text/plain", [EGRESS_AUTH_HEADER]: await egressAuth(egress.secret, now()) },
        body: sealed,
        signal: request.signal,
      });
      const failure = ProxyFailure.fromWireCode(res.headers.get(EGRESS_PROXY_FAILURE_HEADER));
      if (failure) throw failure;
      const text = await res.text();
      const answer = res.ok ? await openEgressAnswer(egress.secret, text) : null;
      if (!answer) throw new Error(`egress refused the call (HTTP ${res.status}): ${text.slice(0, 200)}`);
      return answer;
    },
  };
}
