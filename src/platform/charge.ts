// What a request is charged. Every operation pays its declared weight before its handler runs
// (operation.ts); an operation whose cost follows what it asks the SII (one unit per document it
// queries, say) adds units to the same charge with `chargeUnits`, and a refund gives back all of
// them together.
import type { Context } from "hono";
import type { QuotaDecision } from "../ports.ts";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { bindingWindow } from "./rate-headers.ts";

function quotaExceeded(decision: QuotaDecision, units: number, at: Date): ApiError {
  const window = bindingWindow(decision);
  const retryAfter = Math.max(1, window.resets_at - Math.floor(at.getTime() / 1000));
  return new ApiError(429, "QUOTA_EXCEEDED", `Quota exceeded: this call needs ${units} units`, {
    headers: { "Retry-After": String(retryAfter) },
    details: { units_needed: units, daily: decision.daily, monthly: decision.monthly },
  });
}

/**
 * Takes `units` more from the caller's plan for this request, or throws 429 `QUOTA_EXCEEDED`
 * (what was charged before stays charged, and is given back by the usual rule). `X-Quota-Units`
 * and the usage counters then report the sum. Call it before the SII work the units pay for, so
 * that a caller without the units is refused before anything is asked of the SII.
 */
export async function chargeUnits(c: Context<AppEnv>, units: number): Promise<void> {
  const principal = c.get("principal");
  if (!principal || units <= 0) return;
  if (!Number.isSafeInteger(units)) throw new Error(`chargeUnits: ${units} is not a whole number of units`);
  const { quota, clock } = c.get("deps");
  const at = clock.now();
  const before = c.get("quota");
  const decision = await quota.consume(principal.tokenId, units, principal.plan, at);
  if (!decision.allowed) {
    if (!before) c.set("quota", { decision, units: 0 });
    throw quotaExceeded(decision, units, at);
  }
  c.set("quota", { decision, units: (before?.units ?? 0) + units, at: before?.at ?? at });
}

/**
 * Gives back every unit this request was charged (its weight and any added), in the window it was
 * charged in, except those `settleCharge` kept for work done.
 */
export async function refundCharge(c: Context<AppEnv>): Promise<void> {
  const charged = c.get("quota");
  await giveBack(c, (charged?.units ?? 0) - (charged?.kept ?? 0));
}

/**
 * Fixes this request's charge at `units` whatever its answer (an error included): a request that
 * stopped half-way pays for the work it did. The units charged beyond are given back now.
 */
export async function settleCharge(c: Context<AppEnv>, units: number): Promise<void> {
  const charged = c.get("quota");
  if (!charged) return;
  const kept = Math.min(units, charged.units);
  await giveBack(c, charged.units - kept);
  const now = c.get("quota");
  if (now) c.set("quota", { ...now, kept });
}

async function giveBack(c: Context<AppEnv>, back: number): Promise<void> {
  const principal = c.get("principal");
  const charged = c.get("quota");
  if (!principal || !charged || back <= 0) return;
  await c.get("deps").quota.refund(principal.tokenId, back, charged.at ?? c.get("deps").clock.now());
  const { decision } = charged;
  const daily = { ...decision.daily, used: Math.max(0, decision.daily.used - back) };
  const monthly = { ...decision.monthly, used: Math.max(0, decision.monthly.used - back) };
  c.set("quota", { ...charged, decision: { ...decision, daily, monthly }, units: charged.units - back });
}
