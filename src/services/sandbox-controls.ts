// The simulated SII's controls (the `SandboxControls` port, sandbox mode only), with no HTTP:
// the test credentials, faults switched on and off, recorded answers queued and dropped, the call
// counts read and reset. Each answers the state it leaves; with no simulator behind the gateway,
// 404 as for any unknown path.

import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import type { SandboxControls, SandboxFault } from "../ports/sandbox.ts";
import { SII_HOSTS } from "../sii/hosts.ts";

type Operator = Pick<Caller, "deps">;

/** The simulator's controls, or 404 when the gateway talks to the real SII. */
export function sandboxOf({ deps }: Operator): SandboxControls {
  const sandbox = deps.sii.sandbox;
  if (!sandbox) throw new ApiError(404, "HTTP_404", "The sandbox exists only when SII_UPSTREAM=sandbox");
  return sandbox;
}

/** Framing, not content: the body given decides its length. */
const FRAMING = new Set(["content-length", "transfer-encoding"]);

/** The test taxpayers with their secrets, the CA and the CAF-signing key's public half. */
export function sandboxCredentials(operator: Operator) {
  return sandboxOf(operator).credentials();
}

function faultsView(sandbox: SandboxControls) {
  return { faults: sandbox.faults().map((f) => ({ service: f.service, fault: f.fault, remaining: f.remaining })) };
}

function callsView(sandbox: SandboxControls) {
  const calls = Object.fromEntries([...sandbox.calls()].sort(([a], [b]) => a.localeCompare(b)));
  return { calls, total: Object.values(calls).reduce((sum, n) => sum + n, 0) };
}

function replaysView(sandbox: SandboxControls) {
  return {
    replays: sandbox.replays().map((r) => ({ service: r.service, status: r.status, bytes: r.body.length, remaining: r.remaining })),
  };
}

/** The next `remaining` calls of a service get the fault. */
export function addFault(operator: Operator, fault: SandboxFault) {
  const sandbox = sandboxOf(operator);
  // A host fails every service on it: the SII hosts the gateway calls are the other names it takes.
  refuseUnknownService(fault.service, [...sandbox.services(), ...SII_HOSTS], "a service of the simulator or an SII host");
  sandbox.addFault(fault);
  return faultsView(sandbox);
}

export function clearFaults(operator: Operator) {
  const sandbox = sandboxOf(operator);
  sandbox.clearFaults();
  return faultsView(sandbox);
}

/** Requests received per service (by name), and in all. */
export function callCounts(operator: Operator) {
  return callsView(sandboxOf(operator));
}

export function resetCalls(operator: Operator) {
  const sandbox = sandboxOf(operator);
  sandbox.resetCalls();
  return callsView(sandbox);
}

/** A recorded answer as given: its headers by any case, its body's bytes. */
export interface RecordedAnswer {
  service: string;
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  count: number;
}

/**
 * Queues a recorded answer for the next `count` calls of a service: 400 naming `service` when the
 * simulator has none by that name; header names lower-case, the framing headers dropped.
 */
export function addReplay(operator: Operator, answer: RecordedAnswer) {
  const sandbox = sandboxOf(operator);
  refuseUnknownService(answer.service, sandbox.services(), "a service of the simulator");
  const headers = Object.fromEntries(
    Object.entries(answer.headers)
      .map(([name, value]) => [name.toLowerCase(), value] as const)
      .filter(([name]) => !FRAMING.has(name)),
  );
  sandbox.addReplay({ service: answer.service, status: answer.status, headers, body: answer.body, remaining: answer.count });
  return replaysView(sandbox);
}

export function clearReplays(operator: Operator) {
  const sandbox = sandboxOf(operator);
  sandbox.clearReplays();
  return replaysView(sandbox);
}

/** 400 naming `service` when it is none of `names`: a fault or replay for a misspelt name would wait forever. */
function refuseUnknownService(service: string, names: readonly string[], what: string): void {
  if (names.includes(service)) return;
  throw new ApiError(400, "VALIDATION_ERROR", `The request breaks a rule: service`, {
    errors: [{ path: "service", location: "body", message: `must be ${what}: ${names.join(", ")}` }],
  });
}

function clockOf(sandbox: SandboxControls, now: Date) {
  return { ahora: now.toISOString(), adelanto_segundos: sandbox.clockOffset() / 1000 };
}

/** The sandbox's time and how far it is ahead of the real one. */
export function clockView(operator: Operator) {
  return clockOf(sandboxOf(operator), operator.deps.clock.now());
}

/** Moves the simulator's clock, and so the gateway's (config.ts `clockFor`), `ms` ahead. */
export function advanceClock(operator: Operator, ms: number) {
  const sandbox = sandboxOf(operator);
  sandbox.advanceClock(ms);
  return clockOf(sandbox, operator.deps.clock.now());
}
