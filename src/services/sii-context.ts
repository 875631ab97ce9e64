// What every operation that calls the SII starts from: the transport, the time limit, and the
// calling account's proxy when it has one enabled; and the request's SII sessions (src/sii/session-service.ts).
// One way in, `siiServicesFor(caller)`: a service takes what it needs explicitly (a Caller,
// src/platform/caller.ts), so it can serve a caller that is not an HTTP request.
import type { Caller } from "../platform/caller.ts";
import type { Deps } from "../ports/deps.ts";
import { answerLogFor } from "../sii/excerpt.ts";
import type { SiiContext } from "../sii/http.ts";
import { type SiiSessions, sessionService } from "../sii/session-service.ts";
import { activeProxy } from "./proxy-settings.ts";

/** The SII can be slow; past this a call is reported as failed (502) rather than left hanging (`SII_TIMEOUT_MS`). */
export const SII_TIMEOUT_MS = 30_000;

/**
 * Longest an SII call waits for its turn (earlier calls with its session, the calls at once per
 * taxpayer) and for pacing, before it is answered 429 with `Retry-After` (`SII_MAX_WAIT_MS`).
 */
export const SII_MAX_WAIT_MS = 5_000;

/** Who calls the SII: the deps, the account and the request's answer log are what the context and sessions read. */
export type SiiCaller = Pick<Caller, "deps" | "account" | "request">;

async function siiContextFor(caller: SiiCaller): Promise<SiiContext> {
  const { sii, config } = caller.deps;
  // Live mode keeps the last SII answer for the excerpt a 502 carries; the sandbox's are known.
  const answers = sii.mode === "live" ? answerLogFor(caller.request) : undefined;
  const proxy = await activeProxy(caller.deps, caller.account());
  return { transport: sii, timeoutMs: config.siiTimeoutMs ?? SII_TIMEOUT_MS, proxy, answers };
}

/** Least time between two SII calls for one taxpayer (the SII bans bursts); short against the sandbox. */
export function pacingMs(deps: Deps): number {
  return deps.sii.mode === "live" ? 1200 : 0;
}

/** The caller's SII sessions over `ctx`. */
function sessionsFor(caller: SiiCaller, ctx: SiiContext): SiiSessions {
  const { deps } = caller;
  return sessionService({
    ctx,
    sessions: deps.sessions,
    secretKey: deps.config.secretKey,
    now: () => deps.clock.now(),
    pacingMs: pacingMs(deps),
    waitMs: deps.config.siiMaxWaitMs ?? SII_MAX_WAIT_MS,
    account: caller.account,
  });
}

/** What a service hands to src/sii/: the SII context and the sessions, set up once for the request. */
export async function siiServicesFor(caller: SiiCaller): Promise<{ ctx: SiiContext; sessions: SiiSessions }> {
  const ctx = await siiContextFor(caller);
  return { ctx, sessions: sessionsFor(caller, ctx) };
}
