// Starting and waking the job that watches the account's folio ledger of one issuer and type: `folios.low` when what the type
// has left falls to the threshold the account set (once per fall: it warns again only after a CAF lifted
// it above), `folios.expiring` when a range with folios left comes within EXPIRY_WARNING_DAYS of its
// `vence` (once per range). It reads the gateway's own ledger only: no SII call, no credentials, nothing
// charged. One per account, issuer and type, started when a CAF is added or a threshold set, woken at once
// when a `generar` leaves the type at or below its threshold (its step: ./folio-watch-step.ts).
import { randomName } from "../lib/random-name.ts";
import type { Caller } from "../platform/caller.ts";
import type { Deps } from "../ports/deps.ts";
import { type JobRecord, MAX_LIVE_JOBS } from "../ports/jobs.ts";

/**
 * A watch's longest life. It ends sooner by itself once the ledger has no folio left to give (all used,
 * void or expired); the next CAF, threshold or low `generar` starts another.
 */
export const WATCH_LIFE_MS = 2 * 365 * 24 * 60 * 60 * 1000;

export interface WatchInput {
  emisor: string;
  dte: number;
}

const watchSubject = ({ emisor, dte }: WatchInput) => `folios:${emisor}:${dte}`;

function newWatchJob(deps: Deps, account: string, tokenId: string, input: WatchInput): JobRecord {
  const now = deps.clock.now().getTime();
  return {
    id: randomName("job"),
    account,
    kind: "vigilancia_folios",
    subject: watchSubject(input),
    estado: "pendiente",
    input: { ...input },
    progress: null,
    sealed: null,
    token_id: tokenId,
    created_at: now,
    updated_at: now,
    due: now,
    expires: now + WATCH_LIFE_MS,
    runs: 0,
    error: null,
    lease_until: 0,
    version: 1,
  };
}

/**
 * Makes sure the ledger of `emisor` and `dte` is watched, and looks at it now. Called after the ledger
 * changed (a CAF added, a threshold set, folios taken); it never fails its caller, whose change is made:
 * a watch it could not start or wake looks at its next time, or starts with the next CAF or threshold.
 */
export async function watchLedger(caller: Caller, input: WatchInput): Promise<void> {
  const { deps } = caller;
  try {
    const created = await deps.jobs.create(newWatchJob(deps, caller.account(), caller.tokenId(), input), MAX_LIVE_JOBS);
    if (created.state !== "existing") return;
    const { job } = created;
    const now = deps.clock.now().getTime();
    if (job.estado !== "pendiente" || (job.due !== null && job.due <= now)) return;
    // A step in flight loses to this write and writes nothing; the look it comes back for sees the same ledger.
    const update = { estado: job.estado, progress: job.progress, sealed: null, due: now, runs: job.runs, error: job.error };
    await deps.jobs.change(job.account, job.id, ["pendiente"], update, [], now);
  } catch (error) {
    deps.log.log({ level: "warn", msg: "folio watch not started", error: error instanceof Error ? error.message : String(error) });
  }
}
