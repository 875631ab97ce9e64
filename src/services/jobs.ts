// The account's jobs and events, with no HTTP: following a sent envelope (started here or by
// `envios/enviar` with `seguir`), an RCV download, listing, reading, cancelling and resuming jobs, a
// download's documents, and the events feed. A job is started with what the SII gives the caller's
// credential now (a token, a web session); the credential itself is never kept
// (src/services/track-envio.ts, src/services/rcv-download-job.ts).
import type { SigningCredential } from "../certificates/credentials.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import { type EventRecord, type EventType, type JobCreation, type JobRecord, type JobState, MAX_LIVE_JOBS } from "../ports/jobs.ts";
import type { WatchInput } from "./folio-watch.ts";
import type { RcvLogin } from "./rcv.ts";
import {
  type DownloadInput,
  type DownloadProgress,
  type DownloadQuery,
  downloadResult,
  downloadSession,
  downloadSubject,
  newDownloadJob,
} from "./rcv-download-job.ts";
import { siiServicesFor } from "./sii-context.ts";
import { newTrackJob, sealToken, type TrackInput } from "./track-envio.ts";

/** A time of the store (ms) as the API shows it. */
export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A job as the API shows it: never its sealed token, its lease or its version. */
export function jobView(job: JobRecord) {
  return {
    id: job.id,
    tipo: job.kind,
    estado: job.estado,
    envio: job.kind === "seguimiento_envio" ? (job.input as unknown as TrackInput) : null,
    folios: job.kind === "vigilancia_folios" ? (job.input as unknown as WatchInput) : null,
    estado_sii: job.kind === "seguimiento_envio" ? job.progress : null,
    rcv: job.kind === "descarga_rcv" ? (job.input as unknown as DownloadInput) : null,
    descarga: job.kind === "descarga_rcv" ? downloadView(job.progress as unknown as DownloadProgress) : null,
    intentos: job.runs,
    ultimo_error: job.error,
    next_run_at: iso(job.due),
    expires_at: iso(job.expires),
    created_at: iso(job.created_at),
    updated_at: iso(job.updated_at),
  };
}

function downloadView({ estado, registros, resultado }: DownloadProgress) {
  return { estado, registros, resultado_hasta: resultado ? iso(resultado.hasta) : null };
}

export function eventView(event: EventRecord) {
  return { id: event.id, type: event.type, created_at: iso(event.created_at), sequence: event.sequence, data: event.data };
}

/** A token of the DTE or boleta service for `credential`, as the SII gives it to the call that starts or resumes a job. */
async function siiToken(caller: Caller, input: TrackInput, credential: SigningCredential): Promise<string> {
  const { sessions } = await siiServicesFor(caller);
  return sessions.withDteToken(credential, input.ambiente, async (token) => token, input.servicio);
}

/**
 * Follows the envelope `input` names until the SII's verdict. A live job of the account that already
 * follows it is answered instead (`creado: false`): one verdict event per envelope.
 */
export async function trackEnvelope(caller: Caller, input: TrackInput, credential: SigningCredential) {
  return created(await followEnvelope(caller, input, await siiToken(caller, input, credential)));
}

/**
 * Downloads the RCV file `q` names (request, poll, fetch) and keeps its documents for 24 h. A live job of
 * the account for the same download is answered instead (`creado: false`), and the SII is not asked again.
 */
export async function downloadRegister(caller: Caller, q: DownloadQuery, login: RcvLogin) {
  const subject = downloadSubject(q);
  const live = (await caller.deps.jobs.live(caller.account(), subject)).find((job) => job.subject === subject);
  if (live) return { job: jobView(live), creado: false };
  return created(await caller.deps.jobs.create(await newDownloadJob(caller, q, login), MAX_LIVE_JOBS));
}

function created(creation: JobCreation) {
  if (creation.state === "full")
    throw new ApiError(409, "JOBS_LIMIT", `The account already has ${creation.max} live jobs; cancel some or wait for them to end`, {
      details: { max_live_jobs: creation.max },
    });
  return { job: jobView(creation.job), creado: creation.state === "created" };
}

/** The job following `input` with `token` (the one the call that sent or asked about it got): created, or the live one. */
export async function followEnvelope(caller: Caller, input: TrackInput, token: string) {
  const job = await newTrackJob(caller.deps, caller.account(), caller.tokenId(), input, token);
  return caller.deps.jobs.create(job, MAX_LIVE_JOBS);
}

async function jobOf(caller: Caller, id: string): Promise<JobRecord> {
  const job = await caller.deps.jobs.get(caller.account(), id);
  // A webhook endpoint's delivery job is answered as the endpoint (/api/v1/webhooks/endpoints), not as a job.
  if (!job || job.kind === "entrega_webhook") throw new ApiError(404, "HTTP_404", `The account has no job ${id}`);
  return job;
}

export async function getJob(caller: Caller, id: string) {
  return jobView(await jobOf(caller, id));
}

export async function listJobs(caller: Caller, options: { estado?: JobState; before?: string; limit: number }) {
  // Endpoints' delivery jobs are answered as endpoints (/api/v1/webhooks/endpoints), not listed as jobs.
  const jobs = await caller.deps.jobs.list(caller.account(), { ...options, exceptKind: "entrega_webhook", limit: options.limit + 1 });
  const page = jobs.slice(0, options.limit);
  return { jobs: page.map(jobView), next_before: jobs.length > options.limit ? (page[page.length - 1]?.id ?? null) : null };
}

function notLive(job: JobRecord, what: string): ApiError {
  return new ApiError(409, "JOB_STATE", `The job is ${job.estado}: ${what}`, { details: { estado: job.estado } });
}

/** Cancels a live job; a step in flight then writes nothing (its lease loses to the cancel). */
export async function cancelJob(caller: Caller, id: string) {
  const { deps } = caller;
  const job = await jobOf(caller, id);
  const update = { estado: "cancelado" as const, progress: job.progress, sealed: null, due: null, runs: job.runs, error: null };
  const changed = await deps.jobs.change(
    caller.account(),
    id,
    ["pendiente", "credenciales_requeridas"],
    update,
    [],
    deps.clock.now().getTime(),
  );
  if (changed.state === "not_found") throw new ApiError(404, "HTTP_404", `The account has no job ${id}`);
  if (changed.state === "refused") throw notLive(changed.job, "only a pending job, or one waiting for credentials, can be cancelled");
  return jobView(changed.job);
}

/**
 * Gives a job waiting for credentials what the SII gives `login` now (a token, a session); it asks the SII
 * at once. A submission takes a certificate; a download a clave or a certificate.
 */
export async function resumeJob(caller: Caller, id: string, login: RcvLogin) {
  const { deps } = caller;
  const job = await jobOf(caller, id);
  if (job.estado !== "credenciales_requeridas") throw notLive(job, "only a job waiting for credentials can be resumed");
  const sealed = job.kind === "descarga_rcv" ? await downloadSession(caller, job, login) : await trackSeal(caller, job, login);
  const update = {
    estado: "pendiente" as const,
    progress: job.progress,
    sealed,
    due: deps.clock.now().getTime(),
    runs: job.runs,
    error: null,
  };
  const changed = await deps.jobs.change(caller.account(), id, ["credenciales_requeridas"], update, [], deps.clock.now().getTime());
  if (changed.state === "not_found") throw new ApiError(404, "HTTP_404", `The account has no job ${id}`);
  if (changed.state === "refused") throw notLive(changed.job, "only a job waiting for credentials can be resumed");
  return jobView(changed.job);
}

/** A submission job's fresh SII token, sealed: only a certificate gets one. */
async function trackSeal(caller: Caller, job: JobRecord, login: RcvLogin): Promise<string> {
  if (!("certificate" in login))
    throw new ApiError(400, "VALIDATION_ERROR", "A submission's job is resumed with the certificate: the SII's token needs it", {
      errors: [{ path: "auth.cert", location: "body", message: "is required to resume a seguimiento_envio job" }],
    });
  return sealToken(caller.deps, await siiToken(caller, job.input as unknown as TrackInput, login.certificate));
}

/** A finished RCV download's documents, as the pieces of the answer's `data`. */
export async function jobResult(caller: Caller, id: string) {
  return downloadResult(caller, await jobOf(caller, id));
}

export async function listEvents(caller: Caller, options: { after: number; type?: EventType; limit: number }) {
  const { deps } = caller;
  const events = await deps.jobs.events(caller.account(), options, deps.clock.now().getTime());
  return { events: events.map(eventView), last_sequence: events[events.length - 1]?.sequence ?? options.after };
}
