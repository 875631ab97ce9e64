// Shared by the SII client tests: a sandbox with its transport, fault switches, and a way to
// catch the gateway error a call fails with.
import { ApiError } from "../../src/platform/errors.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import type { FaultKind } from "../../src/sandbox/state.ts";
import { sandboxTransport } from "../../src/sandbox/transport.ts";
import type { SiiContext } from "../../src/sii/http.ts";

export function sandboxSetup(options: { timeoutMs?: number; now?: () => number } = {}) {
  const sandbox = createDefaultSandbox({ hangMs: 60_000, now: options.now });
  const ctx: SiiContext = { transport: sandboxTransport(sandbox), timeoutMs: options.timeoutMs ?? 2_000 };
  const fault = (service: string, kind: FaultKind, count = 1) => sandbox.state.faults.push({ service, fault: kind, remaining: count });
  return { sandbox, ctx, fault };
}

/** The ApiError a promise rejects with; fails the test when it resolves. */
export async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected the call to fail");
}
