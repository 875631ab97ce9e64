// What a request is charged. Every operation pays its declared weight before its handler runs
// (operation.ts); an operation whose cost follows what it asks the SII (one unit per document it
// queries, say) adds units to the same charge with `chargeUnits`, and a refund gives back all of
// them together. A large body's reading fee is reserved before the body is read and settled once
// the answer is known (`reserveUnits`, `settleReservation`, used by json-body.ts).
import type { Context } from "hono";
import type { QuotaDecision } from "../ports/stores.ts";
import type { AppEnv, Principal } from "./context.ts";
import { ApiError } from "./errors.ts";
import { bindingWindow, usageView } from "./rate-headers.ts";

function quotaExceeded(decision: QuotaDecision, units: number, at: Date, why: string): ApiError {
  const window = bindingWindow(decision);
  const retryAfter = Math.max(1, window.resets_at - Math.floor(at.getTime() / 1000));
  return new ApiError(429, "QUOTA_EXCEEDED", `Quota exceeded: ${why} needs ${units} units`, {
    headers: { "Retry-After": String(retryAfter) },
    // The windows as /api/v1/usage shows them (resets_at in ISO 8601); X-RateLimit-Reset keeps Unix seconds.
    details: { units_needed: units, ...usageView(decision) },
  });
}

/** Takes `units` from the caller's plan, or throws 429 `QUOTA_EXCEEDED` saying what needs them (`why`). */
async function take(c: Context<AppEnv>, principal: Principal, units: number, why: string): Promise<{ decision: QuotaDecision; at: Date }> {
  if (!Number.isSafeInteger(units)) throw new Error(`chargeUnits: ${units} is not a whole number of units`);
  const { quota, clock } = c.get("deps");
  const at = clock.now();
  const decision = await quota.consume(principal.tokenId, units, principal.plan, at);
  if (!decision.allowed) {
    if (!c.get("quota")) c.set("quota", { decision, units: 0 });
    throw quotaExceeded(decision, units, at, why);
  }
  return { decision, at };
}

/**
 * Takes `units` more from the caller's plan for this request, or throws 429 `QUOTA_EXCEEDED`
 * naming what needs them (`why`; what was charged before stays charged, and is given back by the usual rule). `X-Quota-Units`
 * and the usage counters then report the sum. Call it before the SII work the units pay for, so
 * that a caller without the units is refused before anything is asked of the SII.
 */
export async function chargeUnits(c: Context<AppEnv>, units: number, why = "this call"): Promise<void> {
  const principal = c.get("principal");
  if (!principal || units <= 0) return;
  const { decision, at } = await take(c, principal, units, why);
  const before = c.get("quota");
  c.set("quota", { ...before, decision, units: (before?.units ?? 0) + units, at: before?.at ?? at });
}

/**
 * Units taken ahead of work whose price is known only from its answer (reading a large body:
 * json-body.ts), held apart from the request's charge until `settleReservation` keeps them in it
 * or gives them back. `decision`: the quota as the latest units taken left it.
 */
export interface Reservation {
  units: number;
  at?: Date;
  decision?: QuotaDecision;
}

/** Takes `units` more for `reservation` now, or throws 429 `QUOTA_EXCEEDED` naming `why` when the plan lacks them. */
export async function reserveUnits(c: Context<AppEnv>, reservation: Reservation, units: number, why: string): Promise<void> {
  const principal = c.get("principal");
  if (!principal || units <= 0) return;
  const { decision, at } = await take(c, principal, units, why);
  reservation.units += units;
  reservation.decision = decision;
  reservation.at ??= at;
}

/**
 * Ends a reservation: `keep` units of it join this request's charge (and no refund gives them
 * back: they pay for work done), the rest go back to the plan in the window they were taken in.
 */
export async function settleReservation(c: Context<AppEnv>, reservation: Reservation, keep: number): Promise<void> {
  const { at, decision: reserved } = reservation;
  const principal = c.get("principal");
  if (!principal || !at || !reserved) return;
  const kept = Math.min(keep, reservation.units);
  const back = reservation.units - kept;
  if (back > 0) await c.get("deps").quota.refund(principal.tokenId, back, at);
  const charged = c.get("quota");
  if (!charged && kept === 0) return;
  // The latest decision already counts the whole reservation: it was taken first.
  c.set("quota", {
    decision: lessUsed(charged?.decision ?? reserved, back),
    units: (charged?.units ?? 0) + kept,
    at: charged?.at ?? at,
    kept: (charged?.kept ?? 0) + kept,
  });
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
  c.set("quota", { ...charged, decision: lessUsed(charged.decision, back), units: charged.units - back });
}

/** A decision as it stands once `back` units were given back. */
function lessUsed(decision: QuotaDecision, back: number): QuotaDecision {
  const daily = { ...decision.daily, used: Math.max(0, decision.daily.used - back) };
  const monthly = { ...decision.monthly, used: Math.max(0, decision.monthly.used - back) };
  return { ...decision, daily, monthly };
}
