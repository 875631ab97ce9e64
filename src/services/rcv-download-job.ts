// The job that does the RCV's asynchronous download for the caller: the call that starts it asks the SII
// to prepare the period's file in the taxpayer's web session; each step then asks the request's state on
// the jobs' cadence and, once TERMINADO, fetches the file and keeps its documents, sealed, in pieces of
// the job store for RESULT_KEPT_MS (`GET /api/v1/jobs/{id}/result`), then they are erased. Its verdict is
// one event: `rcv_download.ready` or `rcv_download.failed`. The job keeps the SII's session (its cookies,
// sealed), never the clave or the certificate: when the SII no longer honours it, the job waits for
// `resume` (`job.credentials_required`). Each SII call is charged as `async/estado` and `async/detalle`
// made by hand.

import { randomName } from "../lib/random-name.ts";
import { open, seal } from "../lib/secret-box.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import type { Deps } from "../ports/deps.ts";
import type { JobRecord, JobUpdate, NewEvent, StepResult } from "../ports/jobs.ts";
import { CookieJar } from "../sii/cookies.ts";
import { type AsyncQuery, asyncJob, requestAsync } from "../sii/rcv.ts";
import { SessionExpired } from "../sii/sessions.ts";
import { JOB_LIFE_MS, nextDelayMs } from "./job-cadence.ts";
import { JobQuotaExhausted, JobTokenRevoked, jobCaller } from "./job-caller.ts";
import { type RcvLogin, rcvSession } from "./rcv.ts";
import { FILE_BLOCK_ROWS, resultUnits, rowUnits } from "./rcv-charge.ts";
import { finishedFile } from "./rcv-download.ts";
import { pacingMs, siiServicesFor } from "./sii-context.ts";

/** What the job downloads: the register's side, taxpayer, period, type and state, and the SII's request for it. */
export interface DownloadInput {
  operacion: "COMPRA" | "VENTA";
  rut: string;
  periodo: string;
  dte: number;
  estado: string;
  /** The SII's id of the request the starting call made (caId). */
  solicitud_id: number;
}

/** What a caller asks to download. */
export type DownloadQuery = Omit<DownloadInput, "solicitud_id">;

/** What the job saw last, as the API shows it (`descarga`). */
export interface DownloadProgress {
  /** The SII's state of the request: CREADO, EN PROCESO, TERMINADO, or its error state. */
  estado: string;
  /** Documents the SII declares in the file (caNumLineas); 0 before TERMINADO. */
  registros: number;
  /** Where the documents are kept, once fetched: the step that wrote them, its pieces, and until when (ms). */
  resultado: { intento: number; piezas: number; hasta: number } | null;
}

/** The documents are answered for 24 hours after they were fetched, then erased. */
export const RESULT_KEPT_MS = 24 * 60 * 60 * 1000;
/**
 * Characters of the answer's text per stored piece: at most 3 bytes each in UTF-8, so a sealed piece
 * (base64: 4/3) stays under RESULT_PIECE_MAX_CHARS and DynamoDB's item limit.
 */
export const PIECE_CHARS = 96_000;
/**
 * The largest file a job keeps (declared documents): about 80 MB of stored text. A larger period is
 * read with `async/detalle` by hand, which streams it instead of keeping it.
 */
export const MAX_JOB_DOCUMENTS = 100_000;
/** A state query costs what `async/estado` costs by hand. */
export const DOWNLOAD_STEP_UNITS = 1;

/** Each sealed value has a key of its own: the job's session never opens as another sealed value, nor its pieces. */
const SESSION_PURPOSE = "job-sii-session";
const PIECE_PURPOSE = "job-result";

/** The download a job does: one live job per account and download. */
export const downloadSubject = (q: DownloadQuery) => `rcv:${q.operacion}:${q.rut}:${q.periodo}:${q.dte}:${q.estado}`;

const asyncQuery = (input: DownloadInput): AsyncQuery => ({
  rut: input.rut,
  periodo: input.periodo,
  tipo: input.dte,
  operacion: input.operacion,
  estado: input.estado,
});

/** The SII session's cookies, sealed for the job's row (never in the clear, never answered). */
const sealSession = (deps: Deps, jar: CookieJar) => seal(deps.config.secretKey, SESSION_PURPOSE, JSON.stringify(jar.toJSON()));

async function openSession(deps: Deps, sealed: string | null): Promise<CookieJar | null> {
  const text = sealed ? await open(deps.config.secretKey, SESSION_PURPOSE, sealed) : null;
  return text === null ? null : CookieJar.fromJSON(JSON.parse(text), () => deps.clock.now().getTime());
}

/**
 * A new job downloading `q`: the SII is asked for the file now, with `login`, in the taxpayer's session,
 * and the job keeps that session, first asking the request's state 30 s from now.
 */
export async function newDownloadJob(caller: Caller, q: DownloadQuery, login: RcvLogin): Promise<JobRecord> {
  const { deps } = caller;
  const session = await rcvSession(caller, q.rut, q.periodo, login, { path: "rcv.periodo", location: "body" });
  const { request, sealed } = await session.run(async (jar) => ({
    request: await requestAsync(session.ctx, jar, asyncQuery({ ...q, solicitud_id: 0 })),
    sealed: await sealSession(deps, jar),
  }));
  const now = deps.clock.now().getTime();
  const input: DownloadInput = { ...q, solicitud_id: request.solicitud_id };
  const progress: DownloadProgress = { estado: request.estado, registros: request.registros, resultado: null };
  return {
    id: randomName("job"),
    account: caller.account(),
    kind: "descarga_rcv",
    subject: downloadSubject(q),
    estado: "pendiente",
    input: { ...input },
    progress: { ...progress },
    sealed,
    token_id: caller.tokenId(),
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

/** A fresh session for a job waiting for credentials: the request's state is read in it now (charged as `async/estado`). */
export async function downloadSession(caller: Caller, job: JobRecord, login: RcvLogin): Promise<string> {
  const input = job.input as unknown as DownloadInput;
  const session = await rcvSession(caller, input.rut, input.periodo, login);
  return session.run(async (jar) => {
    await asyncJob(session.ctx, jar, asyncQuery(input), input.solicitud_id);
    return sealSession(caller.deps, jar);
  });
}

/**
 * Writes the answer's `data` text, as `pieces` yield it, in sealed pieces of PIECE_CHARS characters
 * (never splitting a UTF-16 pair); answers how many.
 */
async function keepPieces(deps: Deps, job: JobRecord, pieces: AsyncGenerator<string>, expires: number): Promise<number> {
  let index = 0;
  let text = "";
  const put = async (piece: string) => {
    const sealed = await seal(deps.config.secretKey, PIECE_PURPOSE, piece);
    await deps.jobs.putResultPiece(job.account, job.id, job.version, index++, sealed, expires);
  };
  for await (const next of pieces) {
    text += next;
    while (text.length >= PIECE_CHARS) {
      const cut = /[\uD800-\uDBFF]/.test(text[PIECE_CHARS - 1] ?? "") ? PIECE_CHARS - 1 : PIECE_CHARS;
      await put(text.slice(0, cut));
      text = text.slice(cut);
    }
  }
  if (text || index === 0) await put(text);
  return index;
}

/** The documents a finished job keeps, as the pieces of the answer's `data`; 409 before they are ready, 410 once erased. */
export async function downloadResult(caller: Caller, job: JobRecord): Promise<AsyncGenerator<string>> {
  const { deps } = caller;
  const progress = job.progress as unknown as DownloadProgress;
  const kept = progress?.resultado;
  if (job.kind !== "descarga_rcv")
    throw new ApiError(409, "JOB_STATE", `A ${job.kind} job has no result to read`, { details: { tipo: job.kind } });
  if (!kept)
    throw new ApiError(409, "JOB_STATE", `The job is ${job.estado}: its documents are not ready`, { details: { estado: job.estado } });
  if (deps.clock.now().getTime() >= kept.hasta)
    throw new ApiError(410, "JOB_RESULT_GONE", `The job's documents were kept until ${new Date(kept.hasta).toISOString()} and are erased`, {
      details: { hasta: new Date(kept.hasta).toISOString() },
    });
  // Paid before any piece is read: 1 unit (the weight) per started block of RESULT_BLOCK_ROWS documents.
  if (resultUnits(progress.registros) > 1) await caller.charge(resultUnits(progress.registros) - 1, "this call");
  // The first piece is read before the answer starts (a result gone is a 410); a later one missing cuts the
  // answer short, and a cut JSON never parses as a whole list.
  const first = await piece(caller, job, kept.intento, 0);
  return (async function* () {
    yield first;
    for (let i = 1; i < kept.piezas; i++) yield await piece(caller, job, kept.intento, i);
  })();
}

async function piece(caller: Caller, job: JobRecord, attempt: number, index: number): Promise<string> {
  const { deps } = caller;
  const sealed = await deps.jobs.resultPiece(job.account, job.id, attempt, index, deps.clock.now().getTime());
  const text = sealed ? await open(deps.config.secretKey, PIECE_PURPOSE, sealed) : null;
  if (text === null) throw new ApiError(410, "JOB_RESULT_GONE", `Piece ${index} of the job's documents is no longer kept`);
  return text;
}

/** The event's data: ids and outcomes only. */
const ids = (input: DownloadInput) => {
  const { operacion, rut, periodo, dte, estado, solicitud_id } = input;
  return { operacion, rut, periodo, dte, estado, solicitud_id };
};

export async function downloadStep(job: JobRecord, deps: Deps): Promise<StepResult> {
  const input = job.input as unknown as DownloadInput;
  const now = deps.clock.now().getTime();
  const progress = job.progress as unknown as DownloadProgress;
  const keep: JobUpdate = { estado: "pendiente", progress: job.progress, sealed: job.sealed, due: job.due, runs: job.runs, error: null };
  const failed = (motivo: string, runs = job.runs): StepResult => ({
    update: { ...keep, estado: "fallido", sealed: null, due: null, runs, error: motivo },
    events: [{ type: "rcv_download.failed", data: { ...ids(input), motivo } }],
  });
  const waitForCredentials = (motivo: string): StepResult => ({
    update: { ...keep, estado: "credenciales_requeridas", sealed: null, due: null, error: motivo },
    events: [{ type: "job.credentials_required", data: { ...ids(input), motivo } }],
  });

  if (now >= job.expires)
    return failed(`the SII did not finish the file within ${Math.round((job.expires - job.created_at) / 3_600_000)} h`);
  const jar = await openSession(deps, job.sealed);
  if (!jar) return waitForCredentials("the job holds no SII session");
  // The taxpayer's pacing holds for a job's calls as for a request's (as for the submission job).
  const spacing = pacingMs(deps);
  const wait = spacing > 0 ? await deps.sessions.reserve(`${input.rut}|pace`, spacing, deps.clock.now(), 0) : 0;
  if (wait > 0) return { update: { ...keep, due: now + wait }, events: [] };
  const caller = jobCaller(deps, job);
  const runs = job.runs + 1;
  try {
    await caller.charge(DOWNLOAD_STEP_UNITS, "the job's state query");
    const { ctx } = await siiServicesFor(caller);
    const q = asyncQuery(input);
    const request = await asyncJob(ctx, jar, q, input.solicitud_id);
    const seen: DownloadProgress = { ...progress, estado: request.estado, registros: request.registros };
    if (request.estado === "CREADO" || request.estado === "EN PROCESO") {
      const sealed = await sealSession(deps, jar);
      return { update: { ...keep, progress: { ...seen }, sealed, runs, due: now + nextDelayMs(runs) }, events: [] };
    }
    if (request.estado !== "TERMINADO")
      return failed(`the SII's request ended ${request.estado}${request.error ? `: ${request.error}` : ""}`, runs);
    if (request.registros > MAX_JOB_DOCUMENTS)
      return failed(
        `the file has ${request.registros} documents, more than a job keeps (${MAX_JOB_DOCUMENTS}): read it with async/detalle, which streams it`,
        runs,
      );
    const pay = (rows: number) => caller.charge(rowUnits(rows, FILE_BLOCK_ROWS), "the file's documents");
    const hasta = deps.clock.now().getTime() + RESULT_KEPT_MS;
    const piezas = await keepPieces(deps, job, await finishedFile(ctx, jar, q, request, pay), hasta);
    const done: DownloadProgress = { ...seen, resultado: { intento: job.version, piezas, hasta } };
    const event: NewEvent = { type: "rcv_download.ready", data: { ...ids(input), registros: request.registros } };
    return { update: { estado: "completado", progress: { ...done }, sealed: null, due: null, runs, error: null }, events: [event] };
  } catch (err) {
    if (err instanceof SessionExpired) {
      await caller.refund();
      return waitForCredentials("the SII no longer honours the job's session: resume it with the clave or the certificate");
    }
    if (err instanceof JobTokenRevoked) return failed(err.message);
    if (err instanceof JobQuotaExhausted)
      return { update: { ...keep, due: Math.max(err.until, now + nextDelayMs(job.runs)), error: err.message }, events: [] };
    // The SII's trouble (5xx, 429, a timeout, a file cut short) is tried again on the cadence, and not paid
    // for; its refusal for good (no such request) ends the job.
    await caller.refund();
    if (err instanceof ApiError && err.status < 500 && err.status !== 429) return failed(`${err.code}: ${err.message}`, runs);
    const text = err instanceof Error ? err.message : String(err);
    return { update: { ...keep, due: now + nextDelayMs(job.runs), runs, error: text }, events: [] };
  }
}
