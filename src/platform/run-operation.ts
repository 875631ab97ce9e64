// What runs around an operation's handler once its scope and input are checked: the dry run, the
// idempotency key, the quota charge and its refund, and every outcome turned into a Response.
import type { Context } from "hono";
import { chargeUnits, refundCharge } from "./charge.ts";
import type { AppEnv } from "./context.ts";
import { isDryRun, offline } from "./dry-run.ts";
import { failureResponse } from "./failure.ts";
import { idempotencyKey, withIdempotency } from "./idempotency.ts";
import type { OperationSpec } from "./quota.ts";
import { counting, countingSiiCalls } from "./sii-call-count.ts";

/** A handler over the context `C` its route gives it (registration keeps the route's input types in `C`). */
export type Handler<C extends Context<AppEnv>> = (c: C) => Promise<Response> | Response;

/** Runs `handler` for `spec`; `dryRun`: the operation offers a preview. */
export async function runOperation<C extends Context<AppEnv>>(
  c: C,
  spec: OperationSpec,
  handler: Handler<C>,
  dryRun: boolean,
): Promise<Response> {
  // A preview is free because it cannot reach the SII: the handler gets a transport that refuses
  // every call, so an operation that forgot to honour `dry_run` fails instead of acting for free.
  // It is no attempt either, so it neither takes nor replays an Idempotency-Key.
  // The key is still checked, so a preview answers a malformed one as the real call would.
  const idempotent = spec.changesState && c.req.method === "POST";
  if (dryRun && isDryRun(c)) {
    if (idempotent) idempotencyKey(c);
    const deps = c.get("deps");
    c.set("deps", { ...deps, sii: offline(deps.sii) });
    return settle(c, handler);
  }
  const deps = c.get("deps");
  c.set("deps", { ...deps, sii: counting(deps.sii) });
  const calls = { made: 0 };
  const attempt = () => countingSiiCalls(calls, () => charged(c, spec, handler, calls));
  // An answer is kept for replays only if the attempt reached the SII or was charged.
  const worthKeeping = () => calls.made > 0 || (c.get("quota")?.units ?? 0) > 0;
  return idempotent ? withIdempotency(c, attempt, { worthKeeping, siiCalls: () => calls.made }) : attempt();
}

/**
 * Runs the handler under quota. Units are given back when nothing reached the SII and the call
 * was refused (4xx: invalid input, a certificate the gateway cannot use), and on 500 or 503
 * whatever was called: the gateway failed, or the SII was unavailable, and the caller did not
 * get what it paid for (5xx keep the rule they had: 500 and 503 free, a 502 from the SII's side
 * charged). Once the SII was called, a later refusal (4xx) is charged, a validation error too:
 * the SII did the work (a folio request over MAX_AUTOR has already asked it twice).
 */
async function charged<C extends Context<AppEnv>>(
  c: C,
  spec: OperationSpec,
  handler: Handler<C>,
  calls: { readonly made: number },
): Promise<Response> {
  await chargeUnits(c, spec.weight);
  const res = await settle(c, handler);
  const failed = res.status === 500 || res.status === 503;
  const refusedBeforeSii = calls.made === 0 && res.status >= 400 && res.status < 500;
  if (failed || refusedBeforeSii) await refundCharge(c);
  return res;
}

/** Every outcome as a Response, so idempotency and refunds see errors too. */
async function settle<C extends Context<AppEnv>>(c: C, handler: Handler<C>): Promise<Response> {
  try {
    return await handler(c);
  } catch (err) {
    return failureResponse(c, err);
  }
}
