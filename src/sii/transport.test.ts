import { describe, expect, it, vi } from "vitest";
import { configFromEnv, WORKERS_MAX_BODY_BYTES } from "../config.ts";
import { sandboxTransport } from "../sandbox/transport.ts";
import { liveTransport, parseUpstream } from "./transport.ts";

describe("SII transport wiring", () => {
  it("sends requests to the in-process sandbox in sandbox mode, never to the network", async () => {
    const network = vi.fn<typeof fetch>();
    const transport = sandboxTransport();
    const res = await transport.fetch(new Request("https://palena.sii.cl/DTEWS/CrSeed.jws"));
    expect(transport.mode).toBe("sandbox");
    expect(await res.text()).toContain("CrSeedService");
    expect((await transport.fetch(new Request("https://palena.sii.cl/no/such/page"))).status).toBe(404);
    expect(network).not.toHaveBeenCalled();
  });

  it("sends requests to the real hosts in live mode", async () => {
    const network = vi.fn<typeof fetch>(async () => new Response("seed"));
    const transport = liveTransport(network);
    const res = await transport.fetch(new Request("https://palena.sii.cl/DTEWS/CrSeed.jws"));
    expect(await res.text()).toBe("seed");
    expect(network).toHaveBeenCalledOnce();
  });

  it("reads SII_UPSTREAM strictly: sandbox by default, live, nothing else", () => {
    expect(parseUpstream(undefined)).toBe("sandbox");
    expect(parseUpstream("live")).toBe("live");
    expect(() => parseUpstream("prod")).toThrow(/SII_UPSTREAM/);
  });

  it("never has a development token in live mode", () => {
    expect(configFromEnv({ SII_UPSTREAM: "sandbox", DEV_API_TOKEN: "t" }).devToken).toBe("t");
    const secret = "a-live-secret-key-of-at-least-32-chars";
    expect(configFromEnv({ SII_UPSTREAM: "live", DEV_API_TOKEN: "t", SECRET_KEY: secret }).devToken).toBeUndefined();
    expect(() => configFromEnv({ SII_UPSTREAM: "live" })).toThrow(/SECRET_KEY/);
    expect(() => configFromEnv({ SII_UPSTREAM: "live", SECRET_KEY: "short" })).toThrow(/SECRET_KEY/);
    expect(configFromEnv({}).maxBodyBytes).toBe(32 * 1024 * 1024);
    expect(configFromEnv({}, WORKERS_MAX_BODY_BYTES).maxBodyBytes).toBe(10 * 1024 * 1024);
    expect(() => configFromEnv({ MAX_BODY_BYTES: "-1" })).toThrow(/MAX_BODY_BYTES/);
  });
});
