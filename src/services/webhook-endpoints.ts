// An account's webhook endpoints, with no HTTP. An endpoint is its delivery job (./webhook-delivery.ts):
// the job's input is the endpoint's URL and subscription, its sealed field the secrets, its progress what
// was delivered; so an endpoint, its secret and its cursor change in the store's one atomic write, on
// every runtime's own engine. Each endpoint holds one of MAX_ENDPOINTS subject slots (`webhook:1` …), so
// the store's one-live-job-per-subject rule keeps the limit exact under any concurrency.
// A change made while a step is sending loses that step's write (its lease is dropped): what it sent is
// sent again with the same `webhook-id`, which receivers deduplicate (Standard Webhooks 1.0, "Idempotency").
import { randomName } from "../lib/random-name.ts";
import { newWebhookSecret } from "../lib/standard-webhooks.ts";
import { fieldError } from "../platform/body-field.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import type { Deps } from "../ports/deps.ts";
import type { EventType, JobRecord, JobUpdate, NewEvent } from "../ports/jobs.ts";
import { eventView, iso } from "./jobs.ts";
import {
  type EndpointInput,
  type EndpointSecrets,
  freshProgress,
  IDLE_LOOK_MS,
  MAX_ENDPOINTS,
  MAX_RETRYING,
  openSecrets,
  progressOf,
  sealSecrets,
  subscribed,
  WEBHOOK_SUBJECT_PREFIX,
  webhookSubject,
} from "./webhook-delivery.ts";

/** An endpoint lives until deleted; its job's life is only a bound the store needs. */
const ENDPOINT_LIFE_MS = 10 * 365 * 24 * 3_600_000;
/** After a rotation the old secret signs too for this long, so receivers can switch without a gap. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** An endpoint as the API shows it: never its secrets. */
export function endpointView(job: JobRecord) {
  const input = job.input as unknown as EndpointInput;
  const progress = progressOf(job);
  return {
    id: job.id,
    url: input.url,
    eventos: input.eventos,
    descripcion: input.descripcion,
    activo: progress.activo,
    motivo_desactivacion: progress.motivo,
    entrega: {
      last_sequence: progress.cursor,
      reintentos: progress.reintentos.length,
      entregados: progress.entregados,
      abandonados: progress.abandonados,
      fallando_desde: iso(progress.fallando_desde),
      ultimo_intento: progress.ultimo && { ...progress.ultimo, at: iso(progress.ultimo.at) },
      next_run_at: iso(job.due),
    },
    created_at: iso(job.created_at),
    updated_at: iso(job.updated_at),
  };
}

const allowLoopback = (caller: Caller) => caller.deps.config.upstream === "sandbox";

/** 400 naming `url` when it is not one the gateway delivers to (checked again at every attempt). */
async function checkUrl(caller: Caller, url: string): Promise<void> {
  const problem = await caller.deps.webhooks.check(url, allowLoopback(caller));
  if (problem) throw fieldError("url", problem);
}

async function endpointOf(caller: Caller, id: string): Promise<JobRecord> {
  const job = await caller.deps.jobs.get(caller.account(), id);
  if (job?.kind !== "entrega_webhook" || job.estado !== "pendiente")
    throw new ApiError(404, "HTTP_404", `The account has no webhook endpoint ${id}`);
  return job;
}

/** The account's endpoints, oldest first. */
async function endpointsOf(caller: Caller): Promise<JobRecord[]> {
  const live = await caller.deps.jobs.live(caller.account(), WEBHOOK_SUBJECT_PREFIX);
  return live.filter((job) => job.kind === "entrega_webhook").sort((a, b) => a.created_at - b.created_at);
}

export async function listEndpoints(caller: Caller) {
  return { endpoints: (await endpointsOf(caller)).map(endpointView) };
}

export async function getEndpoint(caller: Caller, id: string) {
  return endpointView(await endpointOf(caller, id));
}

/** A new endpoint's delivery job in subject slot `slot`, and its secret (answered once, then only sealed). */
export async function newEndpointJob(deps: Deps, account: string, tokenId: string, input: EndpointInput, slot: string, now: number) {
  const secret = newWebhookSecret();
  const job: JobRecord = {
    id: randomName("we"),
    account,
    kind: "entrega_webhook",
    subject: slot,
    estado: "pendiente",
    input: { ...input },
    // Events written from now on: the feed's older ones are skipped by their time (subscribed()).
    progress: { ...freshProgress(now) },
    sealed: await sealSecrets(deps, { secrets: [{ secret, until: null }] }),
    token_id: tokenId,
    created_at: now,
    updated_at: now,
    // Nothing to send yet (only events from now on are its): the first events written wake it; until then it
    // looks by itself after IDLE_LOOK_MS. A step running now would also lose its write to a test sent at once.
    due: now + IDLE_LOOK_MS,
    expires: now + ENDPOINT_LIFE_MS,
    runs: 0,
    error: null,
    lease_until: 0,
    version: 1,
  };
  return { job, secret };
}

/** Registers an endpoint; its secret is answered here once, then only its signatures show it. */
export async function createEndpoint(caller: Caller, input: EndpointInput) {
  const { deps } = caller;
  await checkUrl(caller, input.url);
  for (let tries = 0; tries < 3; tries++) {
    const taken = new Set((await endpointsOf(caller)).map((job) => job.subject));
    const slot = Array.from({ length: MAX_ENDPOINTS }, (_, i) => webhookSubject(String(i + 1))).find((s) => !taken.has(s));
    if (!slot)
      throw new ApiError(409, "WEBHOOKS_LIMIT", `The account already has ${MAX_ENDPOINTS} webhook endpoints; delete one first`, {
        details: { max_endpoints: MAX_ENDPOINTS },
      });
    const { job, secret } = await newEndpointJob(deps, caller.account(), caller.tokenId(), input, slot, deps.clock.now().getTime());
    const created = await deps.jobs.create(job, Number.MAX_SAFE_INTEGER);
    if (created.state === "created") return { endpoint: endpointView(created.job), secreto: secret };
    // "existing": another creation took the slot meanwhile; look again.
  }
  throw new ApiError(409, "WEBHOOKS_LIMIT", "The account's endpoints kept changing while this one was registered; try again");
}

/** Writes `update` (and `events`) over the endpoint as read; 404 once it is gone. */
async function changeEndpoint(caller: Caller, job: JobRecord, update: Partial<JobUpdate>, events: NewEvent[] = []) {
  const { deps } = caller;
  const full: JobUpdate = {
    estado: job.estado,
    progress: job.progress,
    sealed: job.sealed,
    due: job.due,
    runs: job.runs,
    error: job.error,
    ...update,
  };
  const changed = await deps.jobs.change(caller.account(), job.id, ["pendiente"], full, events, deps.clock.now().getTime());
  if (changed.state !== "changed") throw new ApiError(404, "HTTP_404", `The account has no webhook endpoint ${job.id}`);
  return changed;
}

export interface EndpointPatch {
  url?: string;
  eventos?: EventType[] | null;
  descripcion?: string | null;
  /** true: enable a disabled endpoint (it goes on from where it stopped); false: disable it. */
  activo?: boolean;
}

export async function updateEndpoint(caller: Caller, id: string, patch: EndpointPatch) {
  const job = await endpointOf(caller, id);
  if (patch.url !== undefined) await checkUrl(caller, patch.url);
  const before = job.input as unknown as EndpointInput;
  const input: EndpointInput = {
    url: patch.url ?? before.url,
    eventos: patch.eventos === undefined ? before.eventos : patch.eventos,
    descripcion: patch.descripcion === undefined ? before.descripcion : patch.descripcion,
  };
  const progress = progressOf(job);
  const now = caller.deps.clock.now().getTime();
  let due = job.due;
  if (patch.activo === true && !progress.activo) {
    Object.assign(progress, { activo: true, motivo: null, fallando_desde: null });
    due = now;
  } else if (patch.activo === false && progress.activo) {
    Object.assign(progress, { activo: false, motivo: "disabled by the account" });
    due = null;
  }
  const changed = await changeEndpoint(caller, job, { input: { ...input }, progress: { ...progress }, due });
  return endpointView(changed.job);
}

export async function deleteEndpoint(caller: Caller, id: string) {
  const job = await endpointOf(caller, id);
  await changeEndpoint(caller, job, { estado: "cancelado", sealed: null, due: null });
  return { id, eliminado: true };
}

/** A new secret, answered once; the old one signs too for ROTATION_OVERLAP_MS. */
export async function rotateSecret(caller: Caller, id: string) {
  const { deps } = caller;
  const job = await endpointOf(caller, id);
  const now = deps.clock.now().getTime();
  const old = await openSecrets(deps, job.sealed);
  const current = old?.secrets[0];
  const secret = newWebhookSecret();
  const secrets: EndpointSecrets = {
    secrets: [{ secret, until: null }, ...(current ? [{ secret: current.secret, until: now + ROTATION_OVERLAP_MS }] : [])],
  };
  const changed = await changeEndpoint(caller, job, { sealed: await sealSecrets(deps, secrets) });
  return { endpoint: endpointView(changed.job), secreto: secret, anterior_firma_hasta: current ? iso(now + ROTATION_OVERLAP_MS) : null };
}

/** Writes a `webhook.test` event for this endpoint alone, and sends it now. */
export async function testEndpoint(caller: Caller, id: string) {
  const job = await endpointOf(caller, id);
  const { activo, motivo } = progressOf(job);
  if (!activo)
    throw new ApiError(409, "WEBHOOK_STATE", "The endpoint is disabled: enable it (PATCH activo: true) before testing it", {
      details: { motivo },
    });
  const now = caller.deps.clock.now().getTime();
  const changed = await changeEndpoint(caller, job, { due: now }, [{ type: "webhook.test", data: { endpoint_id: id } }]);
  const [event] = changed.events;
  if (!event) throw new Error("the test event was not written");
  return { event: eventView(event), endpoint: endpointView(changed.job) };
}

/**
 * Sends an event of the feed again, as a fresh series of attempts, to `endpointId` or to every active
 * endpoint subscribed to it. The receivers see the same `webhook-id`.
 */
export async function redeliverEvent(caller: Caller, eventId: string, endpointId?: string) {
  const { deps } = caller;
  const now = deps.clock.now().getTime();
  const event = await deps.jobs.event(caller.account(), eventId, now);
  if (!event) throw new ApiError(404, "HTTP_404", `The account has no event ${eventId} (the feed keeps 30 days)`);
  const targets = endpointId ? [await endpointOf(caller, endpointId)] : await endpointsOf(caller);
  const chosen = targets.filter((job) => progressOf(job).activo && (endpointId !== undefined || subscribed(job, event)));
  if (endpointId && chosen.length === 0)
    throw new ApiError(409, "WEBHOOK_STATE", "The endpoint is disabled: enable it (PATCH activo: true) before redelivering to it");
  // Every endpoint is checked before any is changed: a refusal leaves none of them sending it again.
  const full = chosen.find((job) => progressOf(job).reintentos.length >= MAX_RETRYING);
  if (full) throw new ApiError(409, "WEBHOOK_STATE", `Endpoint ${full.id} already has ${MAX_RETRYING} events waiting for another attempt`);
  const endpoints = [];
  for (const job of chosen) {
    const progress = progressOf(job);
    progress.reintentos = [
      ...progress.reintentos.filter((r) => r.event_id !== event.id),
      { event_id: event.id, sequence: event.sequence, intentos: 0, siguiente: now },
    ];
    endpoints.push((await changeEndpoint(caller, job, { progress: { ...progress }, due: now })).job.id);
  }
  return { event: eventView(event), endpoints };
}
