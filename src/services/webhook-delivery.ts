// The job that delivers an account's events to one webhook endpoint (kind `entrega_webhook`, one per
// endpoint, its id the endpoint's): each step reads the feed after its cursor and POSTs every event the
// endpoint subscribed to, signed by Standard Webhooks 1.0 (src/lib/standard-webhooks.ts), and tries
// failed ones again on the schedule of src/lib/webhook-schedule.ts. What it has done is its `progress`,
// written with the step's result: a crash between a receiver's 2xx and that write makes the next step send
// the same event again, with the same `webhook-id` (at most one duplicate, as the specification allows).
// Only a 2xx delivers; a redirect is not followed; 410 Gone, or five days without a delivery while
// failing, disables the endpoint with a `webhook.endpoint_disabled` event. An idle endpoint is woken as
// soon as events are written (wakeDeliveries), and looks at the feed by itself every IDLE_LOOK_MS.
import { open, seal } from "../lib/secret-box.ts";
import { webhookHeaders } from "../lib/standard-webhooks.ts";
import { nextAttemptAt } from "../lib/webhook-schedule.ts";
import type { Deps } from "../ports/deps.ts";
import type { EventRecord, EventType, JobRecord, JobUpdate, NewEvent, StepResult } from "../ports/jobs.ts";
import { WEBHOOK_BOUNDS } from "../ports/webhooks.ts";

/** Every delivery job's subject begins so: the account's endpoints are found, and woken, by it. */
export const WEBHOOK_SUBJECT_PREFIX = "webhook:";
export const webhookSubject = (endpointId: string) => `${WEBHOOK_SUBJECT_PREFIX}${endpointId}`;

/** Endpoints an account may have at once (each its delivery job). */
export const MAX_ENDPOINTS = 16;
/** An idle endpoint looks at the feed this often even unwoken: a wake lost to a crash delays an event by at most this. */
export const IDLE_LOOK_MS = 60 * 60_000;
/** Failing without a single delivery for this long disables the endpoint. */
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
/** Events waiting for another attempt at once: past this the cursor waits (the feed keeps them 30 days). */
export const MAX_RETRYING = 100;
/** A step starts no attempt after this long, so it ends (≤ this + one attempt's 15 s) well inside its 60 s lease. */
const STEP_BUDGET_MS = 20_000;
/** Attempts one step makes at most, and events it reads at once. */
const ATTEMPTS_PER_STEP = 50;
const FEED_PAGE = 100;

/** The sealed box's purpose: a key of its own, so no other sealed value opens as an endpoint's secrets. */
const SECRETS_PURPOSE = "webhook-secrets";

/** An endpoint's configuration: the job's input (PATCH replaces it). */
export interface EndpointInput {
  url: string;
  /** The types it receives; null: every type. */
  eventos: EventType[] | null;
  descripcion: string | null;
}

export interface Retrying {
  event_id: string;
  sequence: number;
  /** Attempts made so far. */
  intentos: number;
  /** When the next is due (ms). */
  siguiente: number;
}

export interface LastAttempt {
  at: number;
  event_id: string;
  /** The receiver's status, or null when it gave none. */
  status: number | null;
  entregado: boolean;
  /** Why it did not deliver (the status's words, the connection's failure, the first 512 characters of the answer); null when it did. */
  error: string | null;
}

/** What the job has done: its progress. */
export interface DeliveryProgress {
  activo: boolean;
  /** Why it was disabled; null while active. */
  motivo: string | null;
  /** The last sequence of the feed handled (delivered, waiting in `reintentos`, given up, or not subscribed to). */
  cursor: number;
  reintentos: Retrying[];
  /** Since when every attempt failed (ms); null after a delivery. */
  fallando_desde: number | null;
  ultimo: LastAttempt | null;
  entregados: number;
  abandonados: number;
  /** Events written before this (ms: the endpoint's creation) are not its to receive. */
  desde: number;
}

/** The endpoint's secrets, newest first; an older one signs too until `until` (a rotation's 24 h). */
export interface EndpointSecrets {
  secrets: { secret: string; until: number | null }[];
}

export const sealSecrets = (deps: Deps, secrets: EndpointSecrets) => seal(deps.config.secretKey, SECRETS_PURPOSE, JSON.stringify(secrets));
export async function openSecrets(deps: Deps, sealed: string | null): Promise<EndpointSecrets | null> {
  const text = sealed ? await open(deps.config.secretKey, SECRETS_PURPOSE, sealed) : null;
  return text ? (JSON.parse(text) as EndpointSecrets) : null;
}
/** The secrets that sign now. */
export const signingSecrets = (secrets: EndpointSecrets, now: number) =>
  secrets.secrets.filter((s) => s.until === null || s.until > now).map((s) => s.secret);

export const freshProgress = (desde: number): DeliveryProgress => ({
  desde,
  activo: true,
  motivo: null,
  cursor: 0,
  reintentos: [],
  fallando_desde: null,
  ultimo: null,
  entregados: 0,
  abandonados: 0,
});

export const progressOf = (job: JobRecord): DeliveryProgress =>
  structuredClone((job.progress as unknown as DeliveryProgress | null) ?? freshProgress(job.created_at));

/** Whether the endpoint `job` receives `event`: a test goes to its own endpoint only; any other by the subscription. */
export function subscribed(job: JobRecord, event: EventRecord): boolean {
  if (event.type === "webhook.test") return event.data.endpoint_id === job.id;
  if (event.type === "webhook.endpoint_disabled" && event.data.endpoint_id === job.id) return false;
  if (event.created_at < ((job.progress as unknown as DeliveryProgress | null)?.desde ?? job.created_at)) return false;
  const { eventos } = job.input as unknown as EndpointInput;
  return eventos === null || eventos.includes(event.type);
}

/** The body every attempt of `event` sends (the same bytes each time): its id, type, timestamp, sequence and thin data. */
export function deliveryBody(event: EventRecord): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    timestamp: new Date(event.created_at).toISOString(),
    sequence: event.sequence,
    data: event.data,
  });
}

/** Makes the account's idle endpoints look at the feed now (after events were written); never fails its caller. */
export async function wakeDeliveries(deps: Deps, account: string): Promise<void> {
  try {
    await deps.jobs.wake(account, WEBHOOK_SUBJECT_PREFIX, deps.clock.now().getTime());
  } catch (error) {
    deps.log.log({ level: "warn", msg: "webhook deliveries not woken", error: error instanceof Error ? error.message : String(error) });
  }
}

type Attempt =
  | { entregado: true; status: number }
  | { entregado: false; status: number | null; retryAfter: string | null; error: string; gone: boolean };

async function attempt(deps: Deps, job: JobRecord, secrets: readonly string[], event: EventRecord, now: number): Promise<Attempt> {
  const body = deliveryBody(event);
  // The timestamp is the attempt's (the receiver checks it against its clock); the id is the event's on every attempt.
  const headers = await webhookHeaders(secrets, event.id, Math.floor(now / 1000), body);
  const url = (job.input as unknown as EndpointInput).url;
  const outcome = await deps.webhooks.send({ url, headers, body, allowLoopback: deps.config.upstream === "sandbox" });
  if (outcome.state === "answered") {
    if (outcome.status >= 200 && outcome.status < 300) return { entregado: true, status: outcome.status };
    const redirect = outcome.status >= 300 && outcome.status < 400 ? " (redirects are not followed)" : "";
    const said = outcome.body ? `: ${outcome.body.slice(0, WEBHOOK_BOUNDS.keptChars)}` : "";
    return {
      entregado: false,
      status: outcome.status,
      retryAfter: outcome.retryAfter,
      error: `the receiver answered ${outcome.status}${redirect}${said}`,
      gone: outcome.status === 410,
    };
  }
  return { entregado: false, status: null, retryAfter: null, error: outcome.reason, gone: false };
}

/** One step: retries due, then new events, within the step's budget; then when to look again. */
export async function deliverEvents(job: JobRecord, deps: Deps): Promise<StepResult> {
  const started = deps.clock.now().getTime();
  const input = job.input as unknown as EndpointInput;
  const progress = progressOf(job);
  const events: NewEvent[] = [];
  const done = (due: number | null): StepResult => ({
    update: { estado: "pendiente", progress: { ...progress }, sealed: job.sealed, due, runs: job.runs, error: null },
    events,
  });
  if (!progress.activo) return done(null);
  const secrets = await openSecrets(deps, job.sealed);
  if (!secrets) {
    // Sealed under another SECRET_KEY: nothing can be signed until the endpoint's secret is rotated.
    progress.activo = false;
    progress.motivo = "the endpoint's secret cannot be opened with this gateway's SECRET_KEY: rotate it, then enable the endpoint";
    events.push({ type: "webhook.endpoint_disabled", data: { endpoint_id: job.id, motivo: progress.motivo } });
    return done(null);
  }
  let attempts = 0;
  let more = false;
  const within = () => attempts < ATTEMPTS_PER_STEP && deps.clock.now().getTime() - started < STEP_BUDGET_MS;

  /** Sends `event` (attempt number `made` + 1); false when the endpoint was disabled by it. */
  const send = async (event: EventRecord, made: number): Promise<boolean> => {
    const now = deps.clock.now().getTime();
    attempts++;
    const result = await attempt(deps, job, signingSecrets(secrets, now), event, now);
    progress.ultimo = {
      at: now,
      event_id: event.id,
      status: result.status,
      entregado: result.entregado,
      error: result.entregado ? null : result.error,
    };
    progress.reintentos = progress.reintentos.filter((r) => r.event_id !== event.id);
    if (result.entregado) {
      progress.entregados++;
      progress.fallando_desde = null;
      return true;
    }
    progress.fallando_desde ??= now;
    const disable = result.gone
      ? "the receiver answered 410 Gone"
      : now - progress.fallando_desde >= DISABLE_AFTER_MS
        ? "no delivery succeeded for five days"
        : null;
    if (disable) {
      // The event that disabled it is given up; enabled again, the endpoint goes on after it.
      progress.abandonados++;
      progress.activo = false;
      progress.motivo = disable;
      events.push({ type: "webhook.endpoint_disabled", data: { endpoint_id: job.id, motivo: disable, url: input.url } });
      return false;
    }
    const next = nextAttemptAt(made + 1, result.retryAfter, now);
    if (next === null) progress.abandonados++;
    else progress.reintentos.push({ event_id: event.id, sequence: event.sequence, intentos: made + 1, siguiente: next });
    return true;
  };

  // Retries due, oldest first: each is read again from the feed (one event, by its sequence).
  const now = deps.clock.now().getTime();
  for (const retry of progress.reintentos.filter((r) => r.siguiente <= now).sort((a, b) => a.siguiente - b.siguiente)) {
    if (!within()) {
      more = true;
      break;
    }
    const [event] = await deps.jobs.events(job.account, { after: retry.sequence - 1, limit: 1 }, now);
    if (!event || event.id !== retry.event_id) {
      // Past the feed's 30 days: nothing left to send.
      progress.reintentos = progress.reintentos.filter((r) => r.event_id !== retry.event_id);
      progress.abandonados++;
      continue;
    }
    if (!(await send(event, retry.intentos))) return done(null);
  }
  // New events after the cursor, while there is room for their retries.
  feed: while (!more && progress.reintentos.length < MAX_RETRYING) {
    const page = await deps.jobs.events(job.account, { after: progress.cursor, limit: FEED_PAGE }, deps.clock.now().getTime());
    for (const event of page) {
      if (subscribed(job, event)) {
        if (progress.reintentos.length >= MAX_RETRYING) break feed;
        if (!within()) {
          more = true;
          break feed;
        }
        const active = await send(event, 0);
        progress.cursor = event.sequence;
        if (!active) return done(null);
      } else progress.cursor = event.sequence;
    }
    if (page.length < FEED_PAGE) break;
  }
  const after = deps.clock.now().getTime();
  if (more) return done(after);
  const retryAt = Math.min(...progress.reintentos.map((r) => r.siguiente));
  return done(Math.min(Number.isFinite(retryAt) ? retryAt : Number.POSITIVE_INFINITY, after + IDLE_LOOK_MS));
}

/**
 * After a delivery step was written: events written while it ran found it held, so their wake left it
 * alone; when the feed already holds more than its cursor (and its retries leave room), it looks again now.
 */
export async function lookAgain(deps: Deps, job: JobRecord, update: JobUpdate): Promise<void> {
  const progress = update.progress as unknown as DeliveryProgress | null;
  const now = deps.clock.now().getTime();
  if (!progress?.activo || update.due === null || update.due <= now || progress.reintentos.length >= MAX_RETRYING) return;
  const [next] = await deps.jobs.events(job.account, { after: progress.cursor, limit: 1 }, now);
  if (next) await wakeDeliveries(deps, job.account);
}
