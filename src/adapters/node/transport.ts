// The live SII transport on Node (and Lambda): undici, with a TLS client certificate per request
// for the SII's certificate login, and the account's proxy (HTTP CONNECT) when it set one.
import { Agent, buildConnector, type Dispatcher, ProxyAgent, fetch as undiciFetch } from "undici";
import type { ProxyRoute, SiiTransport, TransportOptions } from "../../ports.ts";

export interface NodeTransportOptions {
  /** Certificate authorities to trust besides the system's (tests, private egress). */
  ca?: string;
  /** host → "ip:port": connect there instead of resolving the host, keeping it as TLS server name. */
  resolve?: Record<string, string>;
}

type Tls = { cert?: string; key?: string };

function proxyToken(proxy: ProxyRoute): string | undefined {
  if (!proxy.username) return undefined;
  return `Basic ${btoa(`${proxy.username}:${proxy.password ?? ""}`)}`;
}

export function nodeTransport(options: NodeTransportOptions = {}): SiiTransport {
  const tlsOptions = (tls: Tls = {}) => ({ ...tls, ...(options.ca ? { ca: options.ca } : {}) });
  const connector = (tls?: Tls): buildConnector.connector => {
    const connect = buildConnector(tlsOptions(tls));
    const resolve = options.resolve;
    if (!resolve) return connect;
    return (opts, callback) => {
      const target = resolve[opts.hostname];
      if (!target) return connect(opts, callback);
      const [hostname = "", port = ""] = target.split(":");
      connect({ ...opts, hostname, host: target, port, servername: opts.hostname }, callback);
    };
  };
  const plain = new Agent({ connect: connector() });
  const proxies = new Map<string, ProxyAgent>();

  const proxyAgent = (proxy: ProxyRoute, tls?: Tls): ProxyAgent => {
    const make = () => new ProxyAgent({ uri: proxy.url, token: proxyToken(proxy), requestTls: tlsOptions(tls) });
    if (tls) return make();
    const key = `${proxy.url}\u0000${proxy.username ?? ""}\u0000${proxy.password ?? ""}`;
    let agent = proxies.get(key);
    if (!agent) {
      agent = make();
      proxies.set(key, agent);
    }
    return agent;
  };

  return {
    mode: "live",
    async fetch(request: Request, transport?: TransportOptions): Promise<Response> {
      const cert = transport?.clientCertificate;
      const tls = cert ? { cert: cert.certificatePem, key: cert.privateKeyPem } : undefined;
      // A client certificate is used once (logins): its dispatcher is closed after the answer.
      const oneOff = Boolean(tls);
      const dispatcher: Dispatcher = transport?.proxy
        ? proxyAgent(transport.proxy, tls)
        : tls
          ? new Agent({ connect: connector(tls) })
          : plain;
      try {
        const res = await undiciFetch(request.url, {
          method: request.method,
          headers: [...request.headers],
          body: request.body ? await request.arrayBuffer() : undefined,
          redirect: "manual",
          signal: request.signal,
          dispatcher,
        });
        const headers = new Headers();
        for (const [name, value] of res.headers) headers.append(name, value);
        const body = oneOff ? await res.arrayBuffer() : res.body;
        return new Response(res.status === 204 || res.status === 304 ? null : body, {
          status: res.status,
          statusText: res.statusText,
          headers,
        });
      } finally {
        if (oneOff) await dispatcher.close();
      }
    },
  };
}
