// The simulator's controls serve a caller with no HTTP request: a Caller built from the test app's
// deps, plain data back (each the state it leaves), ApiErrors for an unknown service and for a
// gateway with no simulator.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/platform/errors.ts";
import {
  addFault,
  addReplay,
  callCounts,
  clearFaults,
  clearReplays,
  resetCalls,
  sandboxCredentials,
} from "../../src/services/sandbox-controls.ts";
import { testDeps } from "../support/app.ts";
import { testCaller } from "../support/caller.ts";

function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("the sandbox controls service", () => {
  it("switches a fault on and off and queues a recorded answer without its framing headers", () => {
    const caller = testCaller(testDeps().deps);
    expect(addFault(caller, { service: "seed", fault: "maintenance", remaining: 2 })).toEqual({
      faults: [{ service: "seed", fault: "maintenance", remaining: 2 }],
    });
    expect(clearFaults(caller)).toEqual({ faults: [] });
    const body = new TextEncoder().encode("hola");
    const headers = { "Content-Type": "text/plain", "Content-Length": "99" };
    expect(addReplay(caller, { service: "indicadores", status: 200, headers, body, count: 3 })).toEqual({
      replays: [{ service: "indicadores", status: 200, bytes: 4, remaining: 3 }],
    });
    expect(caller.deps.sii.sandbox?.replays()[0]?.headers).toEqual({ "content-type": "text/plain" });
    expect(clearReplays(caller)).toEqual({ replays: [] });
    expect(resetCalls(caller)).toEqual({ calls: {}, total: 0 });
    expect(callCounts(caller).total).toBe(0);
    expect(sandboxCredentials(caller).taxpayers.length).toBeGreaterThan(0);
  });

  it("refuses a service the simulator does not have, naming `service`, and answers 404 with no simulator", () => {
    const caller = testCaller(testDeps().deps);
    const unknown = thrown(() => addReplay(caller, { service: "uf", status: 200, headers: {}, body: new Uint8Array(), count: 1 }));
    expect(unknown).toBeInstanceOf(ApiError);
    expect(unknown).toMatchObject({ status: 400, init: { errors: [{ path: "service", location: "body" }] } });
    const live = testCaller({ ...caller.deps, sii: { ...caller.deps.sii, sandbox: undefined } });
    expect(thrown(() => callCounts(live))).toMatchObject({ status: 404, code: "HTTP_404" });
  });
});
