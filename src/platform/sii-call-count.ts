// How many SII calls the running operation made, so charging and idempotency follow what happened
// rather than what the handler says.
import { AsyncLocalStorage } from "node:async_hooks";
import type { SiiTransport } from "../ports/transport.ts";

/** The SII calls of the operation running in this async context. */
const siiCalls = new AsyncLocalStorage<{ made: number }>();
/** One counting wrapper per transport: caches keyed by the transport (SII tokens) keep working. */
const countingTransports = new WeakMap<SiiTransport, SiiTransport>();

/** Runs `run` with its SII calls (through a `counting` transport) counted in `calls`. */
export function countingSiiCalls<T>(calls: { made: number }, run: () => T): T {
  return siiCalls.run(calls, run);
}

/** `sii` counting each call into the count of the operation that makes it. */
export function counting(sii: SiiTransport): SiiTransport {
  let wrapped = countingTransports.get(sii);
  if (!wrapped) {
    wrapped = {
      mode: sii.mode,
      sandbox: sii.sandbox,
      fetch: (request, options) => {
        const calls = siiCalls.getStore();
        if (calls) calls.made++;
        return sii.fetch(request, options);
      },
    };
    countingTransports.set(sii, wrapped);
  }
  return wrapped;
}
