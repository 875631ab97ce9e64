// Who a job's SII calls work for: its account, charged to the API token that started it exactly as
// that token's own call would be (the plan is read again at each step: a blocked or deleted token stops
// the job). The services take it as they take a request's caller (src/platform/caller.ts).
import type { Caller } from "../platform/caller.ts";
import type { Deps } from "../ports/deps.ts";
import type { JobRecord } from "../ports/jobs.ts";

/** The job's API token is gone or blocked: the job ends. */
export class JobTokenRevoked extends Error {}

/** The token's plan has no units left: the job waits until its window starts again (`until`, ms). */
export class JobQuotaExhausted extends Error {
  readonly until: number;

  constructor(message: string, until: number) {
    super(message);
    this.until = until;
  }
}

/** A caller for `job`'s step; `charged` counts the units it took, so a failed SII call can give them back. */
export function jobCaller(deps: Deps, job: JobRecord): Caller & { charged: () => number; refund: () => Promise<void> } {
  let charged = 0;
  let at = deps.clock.now();
  return {
    deps,
    account: () => job.account,
    tokenId: () => job.token_id,
    request: job,
    async charge(units, why) {
      const token = await deps.tokens.getById(job.token_id);
      if (!token || token.blocked || token.account !== job.account)
        throw new JobTokenRevoked(`the API token ${job.token_id} that started the job was deleted or blocked`);
      at = deps.clock.now();
      const decision = await deps.quota.consume(job.token_id, units, token.plan, at);
      if (!decision.allowed) {
        const window = decision.monthly.used + units > decision.monthly.limit ? decision.monthly : decision.daily;
        throw new JobQuotaExhausted(`the quota of ${job.token_id} is used up: ${why} needs ${units} units`, window.resets_at * 1000);
      }
      charged += units;
    },
    async settle(units) {
      // What a route's settle does: the charge is fixed at `units`, the rest goes back now.
      if (charged > units) await deps.quota.refund(job.token_id, charged - units, at);
      charged = Math.min(charged, units);
    },
    charged: () => charged,
    async refund() {
      if (charged > 0) await deps.quota.refund(job.token_id, charged, at);
      charged = 0;
    },
  };
}
