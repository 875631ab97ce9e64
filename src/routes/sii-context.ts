// What every operation that calls the SII starts from: the transport, the time limit, and the
// calling account's proxy when it has one enabled; and the request's SII sessions (src/sii/session-service.ts).
import type { Context } from "hono";
import type { AppEnv } from "../platform/context.ts";
import { answerLogFor } from "../sii/excerpt.ts";
import type { SiiContext } from "../sii/http.ts";
import { type SiiSessions, sessionService } from "../sii/session-service.ts";
import { activeProxy } from "./settings/proxy.ts";

/** The SII can be slow; past this a call is reported as failed (502) rather than left hanging (`SII_TIMEOUT_MS`). */
export const SII_TIMEOUT_MS = 30_000;

export async function siiContext(c: Context<AppEnv>): Promise<SiiContext> {
  const { sii, config } = c.get("deps");
  // Live mode keeps the last SII answer for the excerpt a 502 carries; the sandbox's are known.
  const answers = sii.mode === "live" ? answerLogFor(c) : undefined;
  return { transport: sii, timeoutMs: config.siiTimeoutMs ?? SII_TIMEOUT_MS, proxy: await activeProxy(c), answers };
}

/**
 * Longest an SII call waits for its turn (earlier calls with its session, the calls at once per
 * taxpayer) and for pacing, before it is answered 429 with `Retry-After` (`SII_MAX_WAIT_MS`).
 */
export const SII_MAX_WAIT_MS = 5_000;

/** Least time between two SII calls for one taxpayer (the SII bans bursts); short against the sandbox. */
export function pacingMs(c: Context<AppEnv>): number {
  return c.get("deps").sii.mode === "live" ? 1200 : 0;
}

/** The request's SII sessions over `ctx`, for the calling account. */
function sessionsFor(c: Context<AppEnv>, ctx: SiiContext): SiiSessions {
  const { deps } = c.var;
  return sessionService({
    ctx,
    sessions: deps.sessions,
    secretKey: deps.config.secretKey,
    now: () => c.get("deps").clock.now(),
    pacingMs: pacingMs(c),
    waitMs: deps.config.siiMaxWaitMs ?? SII_MAX_WAIT_MS,
    account: () => {
      const principal = c.get("principal");
      if (!principal) throw new Error("a session needs a principal");
      return principal.account;
    },
  });
}

/** What a route hands to src/sii/: the SII context and the sessions, set up once for the request. */
export async function siiServices(c: Context<AppEnv>): Promise<{ ctx: SiiContext; sessions: SiiSessions }> {
  const ctx = await siiContext(c);
  return { ctx, sessions: sessionsFor(c, ctx) };
}
