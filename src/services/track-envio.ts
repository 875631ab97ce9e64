// The job that follows a sent envelope to the SII's verdict: it asks where the envelope is (QueryEstUp,
// or the boleta service) on the cadence of cadence.ts with the SII token the call that started it got,
// sealed, and never a certificate. Its verdict is one event: `dte_envio.processed` (EPR: the counts say
// what was accepted) or `dte_envio.rejected`. When the SII no longer knows the token the job waits
// for `resume` (`job.credentials_required`); its life ends after JOB_LIFE_MS (`job.failed`).

import { randomName } from "../lib/random-name.ts";
import { open, seal } from "../lib/secret-box.ts";
import { ApiError } from "../platform/errors.ts";
import type { Deps } from "../ports/deps.ts";
import type { JobRecord, JobUpdate, NewEvent, StepResult } from "../ports/jobs.ts";
import { queryUploadStatus, type UploadStatus } from "../sii/envios.ts";
import { boletaUploadStatus } from "../sii/envios-boleta.ts";
import type { Ambiente } from "../sii/hosts.ts";
import { TokenRejected } from "../sii/token.ts";
import { JOB_LIFE_MS, nextDelayMs } from "./job-cadence.ts";
import { JobQuotaExhausted, JobTokenRevoked, jobCaller } from "./job-caller.ts";
import { pacingMs, siiServicesFor } from "./sii-context.ts";

/** What the job follows. */
export interface TrackInput {
  emisor: string;
  track_id: string;
  servicio: "dte" | "boleta";
  ambiente: Ambiente;
}

/** A status query costs what `envios/estado` costs by hand. */
export const TRACK_STEP_UNITS = 1;

/** The sealed box's purpose: a key of its own, so no other sealed value opens as a job's token. */
const SEALED_PURPOSE = "job-sii-token";

/** The envelope a job follows: one live job per account and envelope. */
export const trackSubject = (input: TrackInput) => `envio:${input.ambiente}:${input.servicio}:${input.emisor}:${input.track_id}`;

/** The SII token a job runs with, sealed for the job's row (never stored in the clear, never answered). */
export const sealToken = (deps: Deps, token: string) => seal(deps.config.secretKey, SEALED_PURPOSE, token);

/** A new job following `input`, first asking 30 s from now. */
export async function newTrackJob(deps: Deps, account: string, tokenId: string, input: TrackInput, token: string): Promise<JobRecord> {
  const now = deps.clock.now().getTime();
  return {
    id: randomName("job"),
    account,
    kind: "seguimiento_envio",
    subject: trackSubject(input),
    estado: "pendiente",
    input: { ...input },
    progress: null,
    sealed: await sealToken(deps, token),
    token_id: tokenId,
    created_at: now,
    updated_at: now,
    due: now + nextDelayMs(0),
    expires: now + JOB_LIFE_MS,
    runs: 0,
    error: null,
    lease_until: 0,
    version: 1,
  };
}

/** What the API shows of a status answer (the same fields as `envios/estado`). */
function progressOf(status: UploadStatus): Record<string, unknown> {
  const { estado, glosa, resultado, documentos, num_atencion } = status;
  return { estado, glosa, resultado, documentos, num_atencion };
}

/** The verdict's event: ids and outcomes only. */
function verdict(input: TrackInput, status: UploadStatus): NewEvent {
  const type = status.resultado === "rechazado" ? "dte_envio.rejected" : "dte_envio.processed";
  const { emisor, track_id, servicio, ambiente } = input;
  return {
    type,
    data: { emisor, track_id, servicio, ambiente, estado: status.estado, resultado: status.resultado, documentos: status.documentos },
  };
}

export async function trackSubmission(job: JobRecord, deps: Deps): Promise<StepResult> {
  const input = job.input as unknown as TrackInput;
  const now = deps.clock.now().getTime();
  const keep: JobUpdate = { estado: "pendiente", progress: job.progress, sealed: job.sealed, due: job.due, runs: job.runs, error: null };
  const ids = { emisor: input.emisor, track_id: input.track_id };
  const failed = (error: string): StepResult => ({
    update: { ...keep, estado: "fallido", sealed: null, due: null, error },
    events: [{ type: "job.failed", data: { ...ids, motivo: error } }],
  });
  const retry = (error: string, due = now + nextDelayMs(job.runs)): StepResult => ({ update: { ...keep, due, error }, events: [] });

  if (now >= job.expires) return failed(`the SII gave no final state within ${Math.round((job.expires - job.created_at) / 3_600_000)} h`);
  const token = job.sealed ? await open(deps.config.secretKey, SEALED_PURPOSE, job.sealed) : null;
  if (token === null) {
    return {
      update: { ...keep, estado: "credenciales_requeridas", sealed: null, due: null, error: "the job holds no SII token" },
      events: [{ type: "job.credentials_required", data: { ...ids, motivo: "the job holds no SII token" } }],
    };
  }
  // The taxpayer's pacing (src/sii/sessions.ts, the same key) holds for a job's calls as for a request's:
  // a slot taken by a request makes the job come back when it is free, never wait holding its lease.
  const spacing = pacingMs(deps);
  const wait = spacing > 0 ? await deps.sessions.reserve(`${input.emisor}|pace`, spacing, deps.clock.now(), 0) : 0;
  if (wait > 0) return { update: { ...keep, due: now + wait }, events: [] };
  const caller = jobCaller(deps, job);
  try {
    await caller.charge(TRACK_STEP_UNITS, "the job's status query");
    const { ctx } = await siiServicesFor(caller);
    const ambiente = input.ambiente;
    const status =
      input.servicio === "boleta"
        ? await boletaUploadStatus(ctx, ambiente, token, input.emisor, input.track_id)
        : await queryUploadStatus(ctx, ambiente, token, input.emisor, input.track_id);
    const progress = progressOf(status);
    const runs = job.runs + 1;
    if (status.resultado === "procesando") return { update: { ...keep, progress, runs, due: now + nextDelayMs(runs) }, events: [] };
    return { update: { estado: "completado", progress, sealed: null, due: null, runs, error: null }, events: [verdict(input, status)] };
  } catch (err) {
    if (err instanceof TokenRejected) {
      await caller.refund();
      const motivo = `the SII no longer honours the job's token (${err.siiMessage}): resume it with the certificate`;
      return {
        update: { ...keep, estado: "credenciales_requeridas", sealed: null, due: null, runs: job.runs + 1, error: motivo },
        events: [{ type: "job.credentials_required", data: { ...ids, motivo } }],
      };
    }
    if (err instanceof JobTokenRevoked) return failed(err.message);
    if (err instanceof JobQuotaExhausted) return retry(err.message, Math.max(err.until, now + nextDelayMs(job.runs)));
    // The SII's trouble (5xx, 429, a timeout) is tried again on the cadence, and not paid for; its refusal
    // for good (the certificate's holder may not query the issuer's envelopes, no such envelope) ends the job.
    await caller.refund();
    if (err instanceof ApiError && err.status < 500 && err.status !== 429) return failed(`${err.code}: ${err.message}`);
    const text = err instanceof Error ? err.message : String(err);
    return { update: { ...keep, due: now + nextDelayMs(job.runs), runs: job.runs + 1, error: text }, events: [] };
  }
}
