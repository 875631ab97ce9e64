// Where an account's proxy may point: never inside the gateway's own network. Addresses are
// compared as numbers, after the same parsing the connecting code does (WHATWG URL turns
// `2130706433`, `0x7f.0.0.1` and `0177.0.0.1` into `127.0.0.1`; IPv6 is expanded here, so
// `[0:0:0:0:0:0:0:1]` and `[::ffff:127.0.0.1]` are seen as loopback). Runtime-neutral: no Node
// modules, so Workers apply the same rules to literal addresses.

/** Why an address or name is refused; the words tenants see after "not allowed: ". */
export type AddressClass =
  | "loopback"
  | "unspecified"
  | "private"
  | "shared (carrier-grade NAT)"
  | "link-local"
  | "cloud metadata"
  | "multicast"
  | "reserved"
  | "broadcast"
  | "unique-local"
  | "internal name";

export const ADDRESS_CLASSES: readonly AddressClass[] = [
  "loopback",
  "unspecified",
  "private",
  "shared (carrier-grade NAT)",
  "link-local",
  "cloud metadata",
  "multicast",
  "reserved",
  "broadcast",
  "unique-local",
  "internal name",
];

/** Instance metadata services: AWS/GCP/Azure, AWS ECS and DNS, Alibaba, Oracle, AWS over IPv6. */
const METADATA_V4 = new Set(["169.254.169.254", "169.254.169.253", "169.254.170.2", "100.100.100.200", "192.0.0.192"]);
const METADATA_V6 = "fd00:ec2:0:0:0:0:0:254";

/** Dotted-quad IPv4 (the form URL and DNS give) as a 32-bit number, or null. */
export function parseIpv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

/** An IPv6 address (brackets and zone removed) as 8 groups of 16 bits, or null. */
export function parseIpv6(text: string): number[] | null {
  let rest = text.toLowerCase();
  // A trailing dotted IPv4 is two groups: rewrite it as hex and parse the whole the same way.
  const v4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(rest);
  if (v4) {
    const n = parseIpv4(v4[2] ?? "");
    if (n === null) return null;
    rest = `${v4[1]}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const halves = rest.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    for (const g of part.split(":")) {
      if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
      out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0] ?? "");
  const back = halves.length === 2 ? parse(halves[1] ?? "") : [];
  if (!head || !back) return null;
  const known = head.length + back.length;
  if (halves.length === 2) {
    if (known > 7) return null;
    return [...head, ...new Array<number>(8 - known).fill(0), ...back];
  }
  return known === 8 ? head : null;
}

function inV4(ip: number, base: string, bits: number): boolean {
  const start = parseIpv4(base) ?? 0;
  const size = 2 ** (32 - bits);
  return ip >= start && ip < start + size;
}

function classifyV4(ip: number, text: string): AddressClass | null {
  if (METADATA_V4.has(text)) return "cloud metadata";
  if (ip === 0xffffffff) return "broadcast";
  if (inV4(ip, "0.0.0.0", 8)) return "unspecified";
  if (inV4(ip, "127.0.0.0", 8)) return "loopback";
  if (inV4(ip, "10.0.0.0", 8) || inV4(ip, "172.16.0.0", 12) || inV4(ip, "192.168.0.0", 16)) return "private";
  if (inV4(ip, "100.64.0.0", 10)) return "shared (carrier-grade NAT)";
  if (inV4(ip, "169.254.0.0", 16)) return "link-local";
  if (inV4(ip, "224.0.0.0", 4)) return "multicast";
  // 240/4 (future use), 192.0.0.0/24 (IETF protocol assignments), 198.18/15 (benchmarking).
  if (inV4(ip, "240.0.0.0", 4) || inV4(ip, "192.0.0.0", 24) || inV4(ip, "198.18.0.0", 15)) return "reserved";
  return null;
}

function v4Text(hi: number, lo: number): string {
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}

function classifyV6(g: number[]): AddressClass | null {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, hi = 0, lo = 0] = g;
  const text = g.map((x) => x.toString(16)).join(":");
  if (text === METADATA_V6) return "cloud metadata";
  const prefixZero = a === 0 && b === 0 && c === 0 && d === 0 && e === 0;
  if (prefixZero && f === 0 && hi === 0 && lo === 0) return "unspecified";
  if (prefixZero && f === 0 && hi === 0 && lo === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry
  // an IPv4 address the connection may end up at: judge that one.
  const embedded = (prefixZero && (f === 0xffff || f === 0)) || (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0);
  if (embedded) {
    const v4 = v4Text(hi, lo);
    return classifyV4(parseIpv4(v4) ?? 0, v4) ?? (f === 0 && a === 0 ? "reserved" : null);
  }
  if (a === 0x64 && b === 0xff9b && c === 1) return "private"; // local-use NAT64 (RFC 8215)
  if (a === 0x2002) {
    // 6to4 embeds the IPv4 address of the relay it reaches.
    const v4 = v4Text(b, c);
    return classifyV4(parseIpv4(v4) ?? 0, v4);
  }
  if ((a & 0xfe00) === 0xfc00) return "unique-local";
  if ((a & 0xffc0) === 0xfe80) return "link-local";
  if ((a & 0xffc0) === 0xfec0) return "private"; // deprecated site-local
  if ((a & 0xff00) === 0xff00) return "multicast";
  if (a === 0x100 && b === 0 && c === 0 && d === 0) return "reserved"; // discard-only
  if (a === 0) return "reserved"; // the rest of ::/8
  return null;
}

/** Whether the text is an IP literal (IPv4 dotted quad, or IPv6 with or without brackets). */
export function isIpLiteral(host: string): boolean {
  const bare = stripBrackets(host);
  return parseIpv4(bare) !== null || (bare.includes(":") && parseIpv6(bare.replace(/%.*$/, "")) !== null);
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** The class of an IP literal that must not be reached, or null when it is a public address. */
export function addressClass(address: string): AddressClass | null {
  const bare = stripBrackets(address).replace(/%.*$/, "");
  const v4 = parseIpv4(bare);
  if (v4 !== null) return classifyV4(v4, bare);
  const v6 = parseIpv6(bare);
  if (v6) return classifyV6(v6);
  return "reserved";
}

/** Names that only mean something inside a network: refused before any resolution. */
export function nameClass(hostname: string): AddressClass | null {
  const name = hostname.toLowerCase().replace(/\.+$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return "loopback";
  if (name === "metadata.google.internal" || name === "metadata") return "cloud metadata";
  // A single label is completed by the resolver's search domains, i.e. inside the network.
  if (!name.includes(".")) return "internal name";
  if (/\.(local|internal|intranet|lan|home\.arpa|localdomain|corp)$/.test(name)) return "internal name";
  return null;
}

/** A URL hostname (as `new URL` gives it): literal addresses by number, names by their suffix. */
export function hostClass(hostname: string): AddressClass | null {
  return isIpLiteral(hostname) ? addressClass(hostname) : nameClass(hostname);
}

/**
 * Whether a URL's hostname names this machine, as `wrangler dev` and local servers are reached:
 * `localhost`, `127.x.x.x` or `[::1]`. A deployed Worker is reached by its own host name.
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/** The words of a proxy address the policy refuses, before its class (`loopback`, `private`, …). */
export const PROXY_NOT_ALLOWED = "the proxy address is not allowed: ";

export type ProxyFailureKind = "not_allowed" | "unreachable" | "refused" | "not_http" | "tunnel_failed";

const FAILURE_TEXT: Record<Exclude<ProxyFailureKind, "not_allowed">, string> = {
  unreachable: "the proxy could not be reached",
  refused: "the proxy refused the connection",
  not_http: "the proxy answered something other than HTTP",
  tunnel_failed: "the SII could not be reached through the proxy",
};

/**
 * A proxy failure in the gateway's own words. It never carries the socket's text (error codes,
 * addresses, ports, parser messages): those would tell a closed port from an open one.
 */
export class ProxyFailure extends Error {
  readonly kind: ProxyFailureKind;
  readonly addressClass: AddressClass | null;

  constructor(kind: ProxyFailureKind, addressClass: AddressClass | null = null) {
    super(kind === "not_allowed" ? `${PROXY_NOT_ALLOWED}${addressClass ?? "reserved"}` : FAILURE_TEXT[kind]);
    this.name = "ProxyFailure";
    this.kind = kind;
    this.addressClass = kind === "not_allowed" ? (addressClass ?? "reserved") : null;
  }

  /** `kind` or `not_allowed:<class>`: how the Node egress hands it back to a Worker. */
  get wireCode(): string {
    return this.addressClass ? `${this.kind}:${this.addressClass}` : this.kind;
  }

  static fromWireCode(code: string | null): ProxyFailure | null {
    if (!code) return null;
    const [kind, cls] = code.split(/:(.*)/s) as [string, string | undefined];
    if (kind === "not_allowed") {
      const found = ADDRESS_CLASSES.find((c) => c === cls);
      return found ? new ProxyFailure("not_allowed", found) : null;
    }
    return kind in FAILURE_TEXT ? new ProxyFailure(kind as ProxyFailureKind) : null;
  }
}

export interface ParsedProxyUrl {
  protocol: "http:" | "https:";
  hostname: string;
  port: number;
}

/** Parses a proxy URL as the connecting code will (WHATWG URL); null when it is not one. */
export function parseProxyUrl(value: string): ParsedProxyUrl | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return { protocol: url.protocol, hostname: stripBrackets(url.hostname), port };
}
