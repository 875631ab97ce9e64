// The proxy address policy: every spelling of an inside address is judged by its number, as the
// connecting code will reach it, and public addresses and names pass.
import { describe, expect, it } from "vitest";
import { addressClass, hostClass, ProxyFailure, parseIpv6, parseProxyUrl } from "../../src/lib/address-policy.ts";

/** Each class with several spellings of one of its addresses, as a tenant could write them. */
const refused: [string, string[]][] = [
  [
    "loopback",
    [
      "http://127.0.0.1:9",
      "http://2130706433:9",
      "http://0x7f.0.0.1:9",
      "http://0177.0.0.1:9",
      "http://127.1:9",
      "http://[::1]:9",
      "http://[0:0:0:0:0:0:0:1]:9",
      "http://[::ffff:127.0.0.1]:9",
      "http://[::ffff:7f00:1]:9",
      "http://[::127.0.0.2]:9",
      "http://[64:ff9b::127.0.0.1]:9",
      "http://[2002:7f00:1::]:9",
      "http://localhost:9",
      "http://localhost.:9",
      "http://LOCALHOST:9",
      "http://api.localhost:9",
    ],
  ],
  ["unspecified", ["http://0.0.0.0:9", "http://0:9", "http://[::]:9", "http://[0:0:0:0:0:0:0:0]:9"]],
  [
    "private",
    [
      "http://10.1.2.3:9",
      "http://167838211:9",
      "http://0xa.1.2.3:9",
      "http://172.16.0.1:9",
      "http://172.31.255.255:9",
      "http://192.168.0.1:9",
      "http://[::ffff:192.168.0.1]:9",
      "http://[fec0::1]:9",
    ],
  ],
  ["shared (carrier-grade NAT)", ["http://100.64.0.1:9", "http://100.127.255.254:9"]],
  ["link-local", ["http://169.254.1.1:9", "http://[fe80::1]:9", "http://[::ffff:169.254.1.1]:9"]],
  [
    "cloud metadata",
    [
      "http://169.254.169.254:80",
      "http://2852039166:80",
      "http://0xa9.0xfe.0xa9.0xfe:80",
      "http://[::ffff:169.254.169.254]:80",
      "http://[fd00:ec2::254]:80",
      "http://100.100.100.200:80",
      "http://192.0.0.192:80",
      "http://metadata.google.internal.:80",
    ],
  ],
  ["multicast", ["http://224.0.0.1:9", "http://239.255.255.250:9", "http://[ff02::1]:9"]],
  ["reserved", ["http://240.0.0.1:9", "http://198.18.0.1:9", "http://[::1.2.3.4]:9", "http://[100::1]:9"]],
  ["broadcast", ["http://255.255.255.255:9", "http://4294967295:9"]],
  ["unique-local", ["http://[fc00::1]:9", "http://[fd12:3456::1]:9"]],
  ["internal name", ["http://proxy:3128", "http://squid.internal:3128", "http://printer.local:3128", "http://gw.home.arpa:3128"]],
];

const allowed = [
  "http://203.0.113.7:3128",
  "http://8.8.8.8:3128",
  "http://172.32.0.1:3128",
  "http://100.128.0.1:3128",
  "http://[2606:4700:4700::1111]:3128",
  "http://[::ffff:8.8.8.8]:3128",
  "http://proxy.example.cl:3128",
  "https://proxy.example.cl.:8443",
];

describe("proxy address policy", () => {
  for (const [cls, urls] of refused) {
    it(`refuses every spelling of a ${cls} address`, () => {
      for (const url of urls) {
        const parsed = parseProxyUrl(url);
        expect(parsed, url).not.toBeNull();
        expect(hostClass(parsed?.hostname ?? ""), url).toBe(cls);
      }
    });
  }

  it("lets public addresses and names through", () => {
    for (const url of allowed) expect(hostClass(parseProxyUrl(url)?.hostname ?? ""), url).toBeNull();
  });

  it("judges resolved addresses (as DNS gives them) the same way", () => {
    expect(addressClass("127.0.0.1")).toBe("loopback");
    expect(addressClass("::ffff:10.0.0.1")).toBe("private");
    expect(addressClass("fe80::1%eth0")).toBe("link-local");
    expect(addressClass("93.184.216.34")).toBeNull();
    expect(addressClass("not-an-address")).toBe("reserved");
  });

  it("parses IPv6 with compression and embedded IPv4, and rejects malformed text", () => {
    expect(parseIpv6("1:2:3:4:5:6:1.2.3.4")).toEqual([1, 2, 3, 4, 5, 6, 0x102, 0x304]);
    expect(parseIpv6("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(parseIpv6("1::")).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    for (const bad of ["1:2:3:4:5:6:7:8:9", ":::", "1::2::3", "12345::", "::1.2.3.256", "g::1"]) expect(parseIpv6(bad), bad).toBeNull();
  });

  it("speaks of failures in fixed words that travel between egress and Worker", () => {
    const refusedAddress = new ProxyFailure("not_allowed", "loopback");
    expect(refusedAddress.message).toBe("the proxy address is not allowed: loopback");
    expect(ProxyFailure.fromWireCode(refusedAddress.wireCode)?.message).toBe(refusedAddress.message);
    expect(ProxyFailure.fromWireCode("unreachable")?.message).toBe("the proxy could not be reached");
    expect(ProxyFailure.fromWireCode("not_allowed:ECONNREFUSED 127.0.0.1:9")).toBeNull();
    expect(ProxyFailure.fromWireCode("connect ECONNREFUSED")).toBeNull();
  });
});
