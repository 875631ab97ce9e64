// The two quota windows every QuotaStore adapter counts in: the UTC day and the UTC month.
import type { Plan } from "../ports/access.ts";
import type { QuotaState } from "../ports/stores.ts";

export interface WindowKeys {
  day: string; // "2026-03-15"
  month: string; // "2026-03"
  dayResetsAt: number; // unix seconds
  monthResetsAt: number;
}

export function windowKeys(now: Date): WindowKeys {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  const iso = now.toISOString();
  return {
    day: iso.slice(0, 10),
    month: iso.slice(0, 7),
    dayResetsAt: Date.UTC(y, m, d + 1) / 1000,
    monthResetsAt: Date.UTC(y, m + 1, 1) / 1000,
  };
}

export function quotaState(keys: WindowKeys, plan: Plan, dailyUsed: number, monthlyUsed: number): QuotaState {
  return {
    daily: { used: dailyUsed, limit: plan.daily_units, resets_at: keys.dayResetsAt },
    monthly: { used: monthlyUsed, limit: plan.monthly_units, resets_at: keys.monthResetsAt },
  };
}

/** Whether `units` more fit in both windows. */
export function fits(plan: Plan, dailyUsed: number, monthlyUsed: number, units: number): boolean {
  return dailyUsed + units <= plan.daily_units && monthlyUsed + units <= plan.monthly_units;
}
