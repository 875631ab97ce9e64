// The Node runtime's scheduler for jobs: one timer set to the earliest due row of the SQLite file, never
// later than MAX_SLEEP_MS (another process on the file may have added work), woken at once by a job
// created or resumed here. A round leases what is due (src/services/job-runner.ts), so two processes on one file
// never run a job twice at once; a process killed holding a lease gives it up when the lease runs out.

import type { Deps } from "../ports/deps.ts";
import type { JobQueue, JobStore } from "../ports/jobs.ts";
import { JOBS_PER_ROUND, runDueJobs } from "../services/job-runner.ts";

/** Longest sleep between two looks at the file: what another process's new job may wait. */
export const MAX_SLEEP_MS = 5_000;

export interface JobTimer {
  /** Look now (a job was created or resumed in this process). */
  wake(): void;
  /** Stops after the round in progress, if any. */
  stop(): Promise<void>;
}

export function startJobTimer(queue: JobQueue, deps: Deps): JobTimer {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(round, Math.max(0, Math.min(ms, MAX_SLEEP_MS)));
    // The timer alone never keeps the process alive: the server does.
    timer.unref?.();
  };

  const round = () => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      let next: number | null = null;
      try {
        const result = await runDueJobs(queue, deps);
        next = result.next;
        // A full round may have left more due work: look again at once.
        if (result.ran + result.lost >= JOBS_PER_ROUND) next = 0;
      } catch (err) {
        deps.log.log({ level: "error", msg: "job round failed", error: err instanceof Error ? err.message : String(err) });
      } finally {
        running = null;
        const now = deps.clock.now().getTime();
        schedule(again ? 0 : next === null ? MAX_SLEEP_MS : next - now);
        again = false;
      }
    })();
  };

  schedule(0);
  return {
    wake: () => schedule(0),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** `store` whose creations and changes wake `timer`: a new job's first step is not left to the next look. */
export function wakingJobStore<S extends JobStore>(store: S, wake: () => void): S {
  return {
    ...store,
    create: async (job, maxLive) => {
      const result = await store.create(job, maxLive);
      wake();
      return result;
    },
    change: async (...args: Parameters<JobStore["change"]>) => {
      const result = await store.change(...args);
      wake();
      return result;
    },
    wake: async (...args: Parameters<JobStore["wake"]>) => {
      const woken = await store.wake(...args);
      if (woken) wake();
      return woken;
    },
  };
}
