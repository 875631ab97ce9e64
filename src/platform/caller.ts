// Who a service works for, without HTTP: the deps, the calling account, a key for the request's
// SII answer log, and how to charge it more units. Routes build it from their request
// (`callerOf`); a service takes it and never reads a Hono context, so it can serve a caller that
// is not an HTTP request.
import type { Context } from "hono";
import type { Deps } from "../ports/deps.ts";
import { chargeUnits, settleCharge } from "./charge.ts";
import type { AppEnv } from "./context.ts";

export interface Caller {
  deps: Deps;
  /** The calling account (its proxy, its sessions, its stores); throws when there is none. */
  account: () => string;
  /** The API token calling: what a job it starts is charged to. */
  tokenId: () => string;
  /** The request, as the key of its SII answer log (the excerpt a 502 carries; src/sii/excerpt.ts). */
  request: object;
  /** Takes `units` more for this call, or throws 429 `QUOTA_EXCEEDED` naming `why` (chargeUnits). */
  charge: (units: number, why: string) => Promise<void>;
  /** Fixes this call's charge at `units` whatever its answer, giving back the rest now (settleCharge). */
  settle: (units: number) => Promise<void>;
}

/** The caller of a route's request: its deps, the principal's account and its charge. */
export function callerOf(c: Context<AppEnv>): Caller {
  const principal = () => {
    const found = c.get("principal");
    if (!found) throw new Error("a service call needs a principal");
    return found;
  };
  return {
    deps: c.get("deps"),
    account: () => principal().account,
    tokenId: () => principal().tokenId,
    request: c,
    charge: (units, why) => chargeUnits(c, units, why),
    settle: (units) => settleCharge(c, units),
  };
}
