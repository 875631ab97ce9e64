// The live SII transport on Node (and Lambda): undici, with a TLS client certificate per request
// for the SII's certificate login, and the account's proxy (HTTP CONNECT) when it set one.
import { constants } from "node:crypto";
import { lookup as dnsLookup } from "node:dns/promises";
import { Agent, buildConnector, type Dispatcher, Pool, ProxyAgent, fetch as undiciFetch } from "undici";
import { addressClass, isIpLiteral, nameClass, ProxyFailure, parseProxyUrl } from "../../lib/address-policy.ts";
import type { ProxyRoute, SiiTransport, TransportOptions } from "../../ports/transport.ts";

export type ResolveAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface NodeTransportOptions {
  /** Certificate authorities to trust besides the system's (tests, private egress). */
  ca?: string;
  /** host → "ip:port": connect there instead of resolving the host, keeping it as TLS server name. */
  resolve?: Record<string, string>;
  /**
   * Operator setting (ALLOW_PRIVATE_PROXY, tests): let proxies sit on loopback, private or
   * link-local addresses. Off by default; never a tenant's choice.
   */
  allowPrivateProxy?: boolean;
  /** Name resolution for proxy hosts, every address of the name (tests replace it). */
  resolveAll?: ResolveAll;
}

type Tls = { cert?: string; key?: string };

/**
 * The SII's certificate-login hosts negotiate at most TLS 1.2 and renegotiate to ask for the
 * client certificate without RFC 5746 support, which OpenSSL 3 refuses by default. Source:
 * devlas-cl/dte-sii SiiPortalAuth.js (`SII_TLS_OPTS`: maxVersion 'TLSv1.2',
 * SSL_OP_ALLOW_UNSAFE_LEGACY_RENEGOTIATION | SSL_OP_LEGACY_SERVER_CONNECT). Certificate logins only:
 * every other SII call keeps Node's defaults.
 */
export const CERTIFICATE_LOGIN_TLS = {
  maxVersion: "TLSv1.2",
  secureOptions: constants.SSL_OP_ALLOW_UNSAFE_LEGACY_RENEGOTIATION | constants.SSL_OP_LEGACY_SERVER_CONNECT,
} as const;

function proxyToken(proxy: ProxyRoute): string | undefined {
  if (!proxy.username) return undefined;
  return `Basic ${btoa(`${proxy.username}:${proxy.password ?? ""}`)}`;
}

const defaultResolveAll: ResolveAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * The address to open for a proxy host, judged after resolution: every address the name has must
 * be allowed, and the socket goes to the address judged (no second resolution a rebinding DNS
 * server could answer differently).
 */
export async function checkedProxyAddress(hostname: string, allowPrivate: boolean, resolveAll: ResolveAll): Promise<string> {
  const host = hostname.replace(/^\[|\]$/g, "");
  if (isIpLiteral(host)) {
    const refused = allowPrivate ? null : addressClass(host);
    if (refused) throw new ProxyFailure("not_allowed", refused);
    return host;
  }
  const byName = allowPrivate ? null : nameClass(host);
  if (byName) throw new ProxyFailure("not_allowed", byName);
  let addresses: { address: string }[];
  try {
    addresses = await resolveAll(host);
  } catch {
    throw new ProxyFailure("unreachable");
  }
  if (addresses.length === 0) throw new ProxyFailure("unreachable");
  if (!allowPrivate) {
    for (const { address } of addresses) {
      const refused = addressClass(address);
      if (refused) throw new ProxyFailure("not_allowed", refused);
    }
  }
  return addresses[0]?.address ?? host;
}

/** Any error of a proxied call in the gateway's words; the socket's own text stays here. */
function proxyFailureOf(err: unknown): ProxyFailure {
  const chain: unknown[] = [];
  for (let e: unknown = err; e && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e);
  for (const e of chain) if (e instanceof ProxyFailure) return e;
  for (const e of chain) {
    const { code, message, name } = e as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof message === "string" && /^Proxy response \(\d+\)/.test(message)) return new ProxyFailure("refused");
    if (name === "HTTPParserError" || (typeof code === "string" && code.startsWith("HPE_"))) return new ProxyFailure("not_http");
    if (code === "UND_ERR_PRX_CONN" || code === "UND_ERR_SOCKET") return new ProxyFailure("refused");
  }
  return new ProxyFailure("tunnel_failed");
}

export function nodeTransport(options: NodeTransportOptions = {}): SiiTransport {
  const allowPrivate = options.allowPrivateProxy === true;
  const resolveAll = options.resolveAll ?? defaultResolveAll;
  const tlsOptions = (tls?: Tls) => ({
    ...(tls ? { ...CERTIFICATE_LOGIN_TLS, ...tls } : {}),
    ...(options.ca ? { ca: options.ca } : {}),
  });
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
  /** The connection to the proxy itself: to a checked address, failures in the gateway's words. */
  const guarded =
    (connect: buildConnector.connector): buildConnector.connector =>
    (opts, callback) => {
      checkedProxyAddress(opts.hostname, allowPrivate, resolveAll).then(
        (address) => {
          const servername = isIpLiteral(opts.hostname) ? opts.servername : (opts.servername ?? opts.hostname);
          connect({ ...opts, hostname: address, servername }, (err, socket) => {
            if (err) callback(err instanceof ProxyFailure ? err : new ProxyFailure("unreachable"), null);
            else callback(null, socket as NonNullable<typeof socket>);
          });
        },
        (err: unknown) => callback(err instanceof ProxyFailure ? err : new ProxyFailure("unreachable"), null),
      );
    };
  const plain = new Agent({ connect: connector() });
  const proxies = new Map<string, ProxyAgent>();

  const proxyAgent = (proxy: ProxyRoute, tls?: Tls): ProxyAgent => {
    if (!parseProxyUrl(proxy.url)) throw new ProxyFailure("not_allowed", "reserved");
    const make = () =>
      new ProxyAgent({
        uri: proxy.url,
        token: proxyToken(proxy),
        requestTls: tlsOptions(tls),
        // The client toward the proxy: undici hands it the connector built from `proxyTls`.
        clientFactory: (origin, opts) => {
          const { connect } = opts as { connect: buildConnector.connector };
          return new Pool(origin, { ...opts, connect: guarded(connect) });
        },
      });
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
      const proxied = Boolean(transport?.proxy);
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
      } catch (err) {
        if (!proxied || request.signal.aborted) throw err;
        throw proxyFailureOf(err);
      } finally {
        if (oneOff) await dispatcher.close();
      }
    },
  };
}
