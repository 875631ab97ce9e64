// /healthz in workerd through the Worker entry: no token, the sandbox's mode, and the deep check
// for the operator reaching every SII host through the Worker's transport.
import { describe, expect, it } from "vitest";
import { HEALTH_PROBES } from "../../src/services/health.ts";
import { ADMIN_HEADERS, fetchWorker } from "./worker.ts";

describe("GET /healthz on Workers", () => {
  // The isolate's first call builds the gateway and its sandbox (seconds in workerd on a 2-core machine).
  it("answers without a token with the mode, and with the admin token reports every SII host", async () => {
    const res = await fetchWorker("/healthz");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    const body = (await res.json()) as { data: { status: string; mode: string; version: string } };
    expect(body.data).toMatchObject({ status: "ok", mode: "sandbox" });
    expect(body.data.version).toMatch(/^\d+\.\d+\.\d+/);

    expect((await fetchWorker("/healthz?deep=1")).status).toBe(401);
    const deep = await fetchWorker("/healthz?deep=1", { headers: ADMIN_HEADERS });
    expect(deep.status).toBe(200);
    const { data } = (await deep.json()) as { data: { status: string; sii: { host: string; reachable: boolean }[] } };
    expect(data.status).toBe("ok");
    expect(data.sii.map((h) => h.host)).toEqual(HEALTH_PROBES.map((p) => p.host));
    expect(data.sii.every((h) => h.reachable)).toBe(true);
  });
});
