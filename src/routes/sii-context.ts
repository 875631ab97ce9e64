// What every operation that calls the SII starts from: the transport, the time limit, and the
// calling account's proxy when it has one enabled.
import type { Context } from "hono";
import type { AppEnv } from "../platform/context.ts";
import { answerLogFor } from "../sii/excerpt.ts";
import type { SiiContext } from "../sii/http.ts";
import { activeProxy } from "./settings/proxy.ts";

/** The SII can be slow; past this a call is reported as failed (502) rather than left hanging (`SII_TIMEOUT_MS`). */
export const SII_TIMEOUT_MS = 30_000;

export async function siiContext(c: Context<AppEnv>): Promise<SiiContext> {
  const { sii, config } = c.get("deps");
  // Live mode keeps the last SII answer for the excerpt a 502 carries; the sandbox's are known.
  const answers = sii.mode === "live" ? answerLogFor(c) : undefined;
  return { transport: sii, timeoutMs: config.siiTimeoutMs ?? SII_TIMEOUT_MS, proxy: await activeProxy(c), answers };
}
