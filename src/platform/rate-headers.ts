// X-RateLimit-* and X-Quota-Units on every authenticated answer, success or failure.
import type { MiddlewareHandler } from "hono";
import type { QuotaState } from "../ports/stores.ts";
import type { AppEnv } from "./context.ts";

/** The window with the fewest units left is the one that binds, so that is the one reported. */
export function bindingWindow(state: QuotaState) {
  const daily = state.daily.limit - state.daily.used;
  const monthly = state.monthly.limit - state.monthly.used;
  return daily <= monthly ? state.daily : state.monthly;
}

export const rateHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  try {
    await next();
  } finally {
    const principal = c.get("principal");
    if (principal) {
      // c.get, not c.var: c.var copies every variable into a new object on each read.
      const deps = c.get("deps");
      const quota = c.get("quota");
      const state = quota?.decision ?? (await deps.quota.peek(principal.tokenId, principal.plan, deps.clock.now()));
      const window = bindingWindow(state);
      c.res.headers.set("X-RateLimit-Limit", String(window.limit));
      c.res.headers.set("X-RateLimit-Remaining", String(Math.max(0, window.limit - window.used)));
      c.res.headers.set("X-RateLimit-Reset", String(window.resets_at));
      c.res.headers.set("X-Quota-Units", String(quota?.units ?? 0));
    }
  }
};

/** A quota state as the usage endpoints show it. */
export function usageView(state: QuotaState) {
  const view = (w: QuotaState["daily"]) => ({
    used: w.used,
    limit: w.limit,
    remaining: Math.max(0, w.limit - w.used),
    resets_at: new Date(w.resets_at * 1000).toISOString(),
  });
  return { daily: view(state.daily), monthly: view(state.monthly) };
}
