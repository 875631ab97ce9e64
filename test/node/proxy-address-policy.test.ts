// The proxy address policy: every spelling of an inside address is judged by its number, as the
// connecting code will reach it, and public addresses and names pass.
import { describe, expect, it } from "vitest";
import { addressClass, hostClass, ProxyFailure, parseIpv6, parseProxyUrl } from "../../src/lib/address-policy.ts";
import { INSIDE_ADDRESSES as refused } from "../support/inside-addresses.ts";

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
