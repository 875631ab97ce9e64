// The webhook URL policy: https to public addresses; in sandbox mode (allowLoopback) a receiver on this
// machine, over http too; private, link-local and metadata addresses never, in any spelling.
import { describe, expect, it } from "vitest";
import { addressProblem, WEBHOOK_URL_MAX, webhookTarget, webhookUrlProblem } from "../../src/lib/webhook-url.ts";
import { INSIDE_ADDRESSES } from "../support/inside-addresses.ts";

/** [url, problem without loopback allowed, problem with it]: null is allowed, a string a part of the reason. */
const urls: [string, string | null, string | null][] = [
  ["https://hooks.example.cl/sii", null, null],
  ["https://hooks.example.cl:8443/sii?x=1", null, null],
  ["https://203.0.113.7/hook", null, null],
  ["https://[2606:4700:4700::1111]/hook", null, null],
  ["http://hooks.example.cl/sii", "must be https", "must be https"],
  ["http://203.0.113.7/hook", "must be https", "must be https"],
  ["ftp://hooks.example.cl/sii", "must be https", "must be https"],
  ["http://127.0.0.1:8080/hook", "not allowed: loopback", null],
  ["https://127.0.0.1:8443/hook", "not allowed: loopback", null],
  ["http://[::1]:8080/hook", "not allowed: loopback", null],
  ["http://localhost:8080/hook", "not allowed: loopback", null],
  ["http://api.localhost:8080/hook", "not allowed: loopback", null],
  // WHATWG URL reads a bare number as an IPv4 address: 2130706433 is 127.0.0.1.
  ["http://2130706433/hook", "not allowed: loopback", null],
  ["https://2130706433/hook", "not allowed: loopback", null],
  ["https://10.0.0.1/hook", "not allowed: private", "not allowed: private"],
  ["http://10.0.0.1/hook", "not allowed: private", "not allowed: private"],
  ["https://192.168.1.10/hook", "not allowed: private", "not allowed: private"],
  ["https://169.254.169.254/latest/meta-data", "not allowed: cloud metadata", "not allowed: cloud metadata"],
  ["http://169.254.169.254/latest/meta-data", "not allowed: cloud metadata", "not allowed: cloud metadata"],
  ["https://[::ffff:169.254.169.254]/", "not allowed: cloud metadata", "not allowed: cloud metadata"],
  ["https://metadata.google.internal/", "not allowed: cloud metadata", "not allowed: cloud metadata"],
  ["https://169.254.1.1/hook", "not allowed: link-local", "not allowed: link-local"],
  ["https://[::ffff:127.0.0.1]/hook", "not allowed: loopback", null],
  ["https://[::ffff:10.0.0.1]/hook", "not allowed: private", "not allowed: private"],
  ["https://[fd12:3456::1]/hook", "not allowed: unique-local", "not allowed: unique-local"],
  ["https://receiver/hook", "not allowed: internal name", "not allowed: internal name"],
  ["https://hooks.internal/hook", "not allowed: internal name", "not allowed: internal name"],
  ["https://user:pass@hooks.example.cl/hook", "user or password", "user or password"],
  ["https://user@hooks.example.cl/hook", "user or password", "user or password"],
  ["https://hooks.example.cl/hook#part", "fragment", "fragment"],
  [`https://hooks.example.cl/${"a".repeat(WEBHOOK_URL_MAX)}`, "longer than 2048", "longer than 2048"],
  ["hooks.example.cl/hook", "not an absolute URL", "not an absolute URL"],
  ["not a url", "not an absolute URL", "not an absolute URL"],
  ["", "not an absolute URL", "not an absolute URL"],
];

describe("webhookUrlProblem", () => {
  for (const [url, strict, sandbox] of urls) {
    it(`${url.slice(0, 60)}: ${strict ?? "allowed"} / in sandbox ${sandbox ?? "allowed"}`, () => {
      const without = webhookUrlProblem(url, false);
      const withLoopback = webhookUrlProblem(url, true);
      if (strict === null) expect(without).toBeNull();
      else expect(without).toContain(strict);
      if (sandbox === null) expect(withLoopback).toBeNull();
      else expect(withLoopback).toContain(sandbox);
    });
  }

  // Every spelling the proxy setting refuses, as an https receiver: refused by its class in live mode; in
  // sandbox mode only the loopback ones are allowed.
  for (const [cls, spellings] of INSIDE_ADDRESSES) {
    it(`refuses every spelling of ${cls} (${spellings.length})`, () => {
      for (const spelling of spellings) {
        const url = spelling.replace(/^http:/, "https:");
        expect(webhookUrlProblem(url, false), url).toBe(`the receiver's address is not allowed: ${cls}`);
        if (cls === "loopback") expect(webhookUrlProblem(url, true), url).toBeNull();
        else expect(webhookUrlProblem(url, true), url).toBe(`the receiver's address is not allowed: ${cls}`);
      }
    });
  }

  it("allows a URL of exactly the longest length", () => {
    const base = "https://hooks.example.cl/";
    expect(webhookUrlProblem(base + "a".repeat(WEBHOOK_URL_MAX - base.length), false)).toBeNull();
    expect(webhookUrlProblem(base + "a".repeat(WEBHOOK_URL_MAX - base.length + 1), false)).toContain("longer than");
  });
});

/** [resolved address, problem without loopback allowed, problem with it]. */
const addresses: [string, string | null, string | null][] = [
  ["93.184.216.34", null, null],
  ["2606:4700:4700::1111", null, null],
  ["127.0.0.1", "loopback", null],
  ["127.5.6.7", "loopback", null],
  ["::1", "loopback", null],
  ["::ffff:127.0.0.1", "loopback", null],
  ["10.0.0.1", "private", "private"],
  ["172.16.5.4", "private", "private"],
  ["192.168.0.1", "private", "private"],
  ["::ffff:192.168.0.1", "private", "private"],
  ["169.254.169.254", "cloud metadata", "cloud metadata"],
  ["fd00:ec2::254", "cloud metadata", "cloud metadata"],
  ["169.254.10.1", "link-local", "link-local"],
  ["fe80::1", "link-local", "link-local"],
  ["0.0.0.0", "unspecified", "unspecified"],
  ["100.64.0.1", "shared (carrier-grade NAT)", "shared (carrier-grade NAT)"],
  ["fc00::1", "unique-local", "unique-local"],
  ["not-an-address", "reserved", "reserved"],
];

describe("addressProblem (a resolved address)", () => {
  for (const [address, strict, sandbox] of addresses) {
    it(`${address}: ${strict ?? "allowed"} / in sandbox ${sandbox ?? "allowed"}`, () => {
      const without = addressProblem(address, false);
      const withLoopback = addressProblem(address, true);
      if (strict === null) expect(without).toBeNull();
      else expect(without).toBe(`the receiver's address is not allowed: ${strict}`);
      if (sandbox === null) expect(withLoopback).toBeNull();
      else expect(withLoopback).toBe(`the receiver's address is not allowed: ${sandbox}`);
    });
  }
});

describe("webhookTarget", () => {
  it("gives the name to resolve, or the literal, and the port by scheme", () => {
    expect(webhookTarget("https://hooks.example.cl/x")).toEqual({ hostname: "hooks.example.cl", literal: false, port: 443, https: true });
    expect(webhookTarget("http://127.0.0.1:8080/x")).toEqual({ hostname: "127.0.0.1", literal: true, port: 8080, https: false });
    expect(webhookTarget("https://[::1]:8443/x")).toEqual({ hostname: "::1", literal: true, port: 8443, https: true });
    expect(webhookTarget("http://2130706433/x")).toEqual({ hostname: "127.0.0.1", literal: true, port: 80, https: false });
  });
});
