// Each job kind's step, by name: what the runner calls.
import type { JobKind } from "../ports/jobs.ts";
import type { JobStep } from "./run.ts";
import { trackSubmission } from "./track-envio.ts";

export const JOB_KINDS: Record<JobKind, JobStep> = {
  seguimiento_envio: trackSubmission,
};
