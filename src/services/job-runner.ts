// The runner: leases the jobs due, runs one step of each (its kind's `step`), and finishes it with the
// step's events in one write. Called by each runtime's own scheduler: the Node timer, a Durable
// Object's alarm, the Lambda's EventBridge schedule; never a loop of its own.
import type { Deps } from "../ports/deps.ts";
import type { JobKind, JobQueue, JobRecord, StepResult } from "../ports/jobs.ts";
import { watchFolios } from "./folio-watch-step.ts";
import { downloadStep } from "./rcv-download-job.ts";
import { trackSubmission } from "./track-envio.ts";
import { deliverEvents, lookAgain, wakeDeliveries } from "./webhook-delivery.ts";

/**
 * How long a runner holds a job: longer than a step can take (an SII call and its pacing wait, well under
 * a minute), so a lease runs out only when its runner died; then the job is taken again.
 */
export const JOB_LEASE_MS = 60_000;
/** Jobs leased per round: a round's work stays bounded, the next round takes the rest. */
export const JOBS_PER_ROUND = 25;

/** One job's step: what it saw and what comes next. It never throws: a failure is a result (retried or ended). */
export type JobStep = (job: JobRecord, deps: Deps) => Promise<StepResult>;

/** Each kind's step, by name. */
const JOB_KINDS: Record<JobKind, JobStep> = {
  seguimiento_envio: trackSubmission,
  vigilancia_folios: watchFolios,
  entrega_webhook: deliverEvents,
  descarga_rcv: downloadStep,
};

export interface RoundResult {
  /** Jobs whose step was written. */
  ran: number;
  /** Jobs whose step was not written (their lease was taken over, or a cancel came first). */
  lost: number;
  /** When a runner should look next (ms), or null when nothing is due at any time. */
  next: number | null;
}

/** Leases up to `limit` due jobs, runs each one's step (one at a time), and finishes them. */
export async function runDueJobs(queue: JobQueue, deps: Deps, limit = JOBS_PER_ROUND): Promise<RoundResult> {
  const leased = await queue.lease(deps.clock.now().getTime(), deps.config.jobLeaseMs ?? JOB_LEASE_MS, limit);
  let ran = 0;
  let lost = 0;
  for (const job of leased) {
    const { update, events } = await JOB_KINDS[job.kind](job, deps);
    const written = await queue.finish(job, update, events, deps.clock.now().getTime());
    if (written) ran++;
    else lost++;
    if (written?.length) {
      deps.log.log({ level: "info", msg: "job events", job_id: job.id, events: written.map((e) => e.type) });
      // The account's endpoints send them now, not at their next look.
      await wakeDeliveries(deps, job.account);
    } else if (written && job.kind === "entrega_webhook") await lookAgain(deps, job, update);
  }
  return { ran, lost, next: await queue.nextDue() };
}
