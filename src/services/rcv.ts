// The RCV operations, with no HTTP: each takes the caller, its validated input and its login (the
// certificate already read by the route), checks the period, runs in the taxpayer's SII session
// and returns data, or the pieces of its `data` held as platform/stream.ts `holdText` does. The
// synchronous detail's reading is in rcv-detail.ts, the asynchronous download's in rcv-download.ts,
// their charges in rcv-charge.ts.
import type { SigningCredential } from "../certificates/credentials.ts";
import { santiagoDate } from "../lib/dates.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError, type FieldError } from "../platform/errors.ts";
import type { PreviewMarks } from "../platform/preview.ts";
import { type HeldText, holdText } from "../platform/stream.ts";
import type { CookieJar } from "../sii/cookies.ts";
import type { SiiContext } from "../sii/http.ts";
import { type AsyncQuery, type RcvQuery, rcvPurchaseByFolio, rcvSetTransactionTypes, rcvSummary, resumenRows } from "../sii/rcv.ts";
import { RCV_APP } from "../sii/rcv-facade.ts";
import { deleteResumen, setBoletasDiarias, setResumen } from "../sii/rcv-inferred.ts";
import { salesSummaryDetail } from "../sii/rcv-summary-detail.ts";
import type { SiiSessions } from "../sii/session-service.ts";
import { DETAIL_BLOCK_ROWS, DETAIL_WEIGHT, FILE_BLOCK_ROWS, payLookup, payRows } from "./rcv-charge.ts";
import { checkEmptyType, detailCsvLines, detailCsvName, detailJson } from "./rcv-detail.ts";
import { fileDocuments, fileState, requestFile } from "./rcv-download.ts";
import { siiServicesFor } from "./sii-context.ts";

/** How an RCV call logs in: the taxpayer's clave, or a certificate (the holder's or a representative's), already read. */
export type RcvLogin = { pass: { rut: string; clave: string } } | { certificate: SigningCredential };

/** What an operation answers: its data and the envelope's message. */
export interface Answer<T> {
  data: T;
  message: string;
}

/** The SII's first RCV period. */
const FIRST_PERIOD = "201705";

/** Where a call's `periodo` is: a path parameter, or a body field (the RCV download job's `rcv.periodo`). */
export type PeriodoField = Pick<FieldError, "path" | "location">;
const PATH_PERIODO: PeriodoField = { path: "periodo", location: "path" };

/** `periodo` must be a month the RCV has: from 201705 up to the current month (in Chile). */
function checkPeriodo(caller: Caller, periodo: string, field = PATH_PERIODO): void {
  const current = santiagoDate(caller.deps.clock.now()).slice(0, 7).replace("-", "");
  if (periodo < FIRST_PERIOD || periodo > current) {
    throw new ApiError(400, "VALIDATION_ERROR", `${field.path} must be between ${FIRST_PERIOD} and ${current}`, {
      errors: [{ ...field, message: `must be a month from ${FIRST_PERIOD} to ${current}` }],
    });
  }
}

/** Runs `use` in a session as `rut`: the clave's own, or the certificate's (holder or representative). */
function withRcvSession<T>(sessions: SiiSessions, rut: string, login: RcvLogin, use: (jar: CookieJar) => Promise<T>): Promise<T> {
  if ("certificate" in login) return sessions.withCertificate(login.certificate, "0", use, rut);
  if (login.pass.rut !== rut) {
    throw new ApiError(403, "AUTH_ERROR", `The clave is ${login.pass.rut}'s; it cannot open ${rut}'s register`, {
      errors: [{ path: "auth.pass.rut", location: "body", message: `must be ${rut} to read its register with a clave` }],
    });
  }
  return sessions.withClave(login.pass, use, RCV_APP);
}

/** A call's SII context and how it runs in the taxpayer's session. */
export interface RcvSession {
  ctx: SiiContext;
  run: <T>(use: (jar: CookieJar) => Promise<T>) => Promise<T>;
}

/** The period checked, then the caller's SII context and its session as `rut` (the RCV download job's start too). */
export async function rcvSession(caller: Caller, rut: string, periodo: string, login: RcvLogin, field = PATH_PERIODO): Promise<RcvSession> {
  checkPeriodo(caller, periodo, field);
  const { ctx, sessions } = await siiServicesFor(caller);
  return { ctx, run: (use) => withRcvSession(sessions, rut, login, use) };
}

/**
 * The text `pieces(jar)` writes in the session, held (a session wall before the first byte sent
 * logs in again and starts over). Text that does not end within the hold keeps the session until
 * it is finished: the SII calls it still makes (more document types, a second read) stay
 * serialized with this taxpayer's other calls.
 */
function heldInSession(session: RcvSession, pieces: (jar: CookieJar) => AsyncGenerator<string>): Promise<HeldText> {
  return new Promise<HeldText>((answer, fail) => {
    session
      .run(async (jar) => {
        let ended = () => {};
        const finished = new Promise<void>((resolve) => {
          ended = resolve;
        });
        const text = pieces(jar);
        answer(await holdText(text, ended));
        await finished;
      })
      .catch(fail);
  });
}

/** The period's summary; the SII's answer is kept whole under `sii`, `resumen` is the same rows with plain names. */
export async function readSummary(caller: Caller, q: RcvQuery, login: RcvLogin) {
  const session = await rcvSession(caller, q.rut, q.periodo, login);
  const answer = await session.run((jar) => rcvSummary(session.ctx, jar, q));
  const { metaData: _meta, ...sii } = answer;
  const resumen = resumenRows(answer);
  const total = resumen.reduce((sum, r) => sum + r.documentos, 0);
  const data = { rut: q.rut, periodo: q.periodo, operacion: q.operacion, estado: q.estado, total_documentos: total, resumen, sii };
  return { data, message: total ? "OK" : "The period has no documents" };
}

/**
 * The period's documents of type `dte` (0: every type with detail, read from the summary first;
 * types kept only as totals, such as boletas, are listed as such), as the pieces of the answer's `data`.
 */
export async function readDetail(caller: Caller, q: RcvQuery, dte: number, login: RcvLogin): Promise<HeldText> {
  const session = await rcvSession(caller, q.rut, q.periodo, login);
  try {
    return await heldInSession(session, (jar) => detailJson(session.ctx, jar, q, dte, payRows(caller, DETAIL_BLOCK_ROWS)));
  } catch (err) {
    // A type past the synchronous detail's ceiling (no rows, though the summary counts them): its
    // rows were charged but none was read, so the answer (a 502 pointing to the asynchronous
    // download, sent whole) keeps the weight only.
    if (err instanceof ApiError && err.status === 502 && err.init.details?.async) await caller.settle(DETAIL_WEIGHT);
    throw err;
  }
}

/** The SII's own export of the period's documents of type `dte` (0: all), held, with the SII's name for the file. */
export async function exportDetail(caller: Caller, q: RcvQuery, dte: number, login: RcvLogin): Promise<{ name: string; text: HeldText }> {
  const session = await rcvSession(caller, q.rut, q.periodo, login);
  const text = await heldInSession(session, (jar) => detailCsvLines(session.ctx, jar, q, dte, payRows(caller, DETAIL_BLOCK_ROWS)));
  return { name: detailCsvName(q), text };
}

/** Asks the SII to prepare the period's file (step 1 of the asynchronous download). */
export async function requestDownload(caller: Caller, q: AsyncQuery, login: RcvLogin) {
  const session = await rcvSession(caller, q.rut, q.periodo, login);
  return session.run((jar) => requestFile(session.ctx, jar, q));
}

/** A download request's state (step 2). */
export async function downloadState(caller: Caller, q: AsyncQuery, solicitudId: number, login: RcvLogin) {
  const session = await rcvSession(caller, q.rut, q.periodo, login);
  return session.run((jar) => fileState(session.ctx, jar, q, solicitudId));
}

/** The finished file's documents (step 3), as the pieces of the answer's `data`, held in the session. */
export async function downloadDocuments(caller: Caller, q: AsyncQuery, solicitudId: number, login: RcvLogin): Promise<HeldText> {
  const session = await rcvSession(caller, q.rut, q.periodo, login);
  return session.run(async (jar) => {
    const pieces = await fileDocuments(session.ctx, jar, q, solicitudId, payRows(caller, FILE_BLOCK_ROWS));
    return holdText(pieces);
  });
}

/** The purchase documents of type `dte` with `folio` in the period, in whatever state; 404 when none. */
export async function findPurchase(caller: Caller, q: { rut: string; periodo: string }, dte: number, folio: number, login: RcvLogin) {
  const session = await rcvSession(caller, q.rut, q.periodo, login);
  const found = await session.run(async (jar) => {
    const { rows, documentos, emptyStates } = await rcvPurchaseByFolio(session.ctx, jar, q, dte, folio, payLookup(caller));
    // Not found is a 404 only if no state's detail came back empty past its ceiling.
    if (!rows.length) {
      for (const estado of emptyStates) {
        const state = { ...q, operacion: "COMPRA" as const, estado };
        await checkEmptyType(session.ctx, jar, state, dte, { types: [dte], withoutDetail: [], counted: null });
      }
    }
    return { rows, documentos };
  });
  if (!found.rows.length) throw new ApiError(404, "HTTP_404", `No purchase document of type ${dte} with folio ${folio} in ${q.periodo}`);
  return { documentos: found.documentos, sii: { data: found.rows } };
}

/** The sales summaries kept as totals, with the days of receipts and vouchers (src/sii/rcv-summary-detail.ts). */
export async function readSalesSummaryDays(caller: Caller, rut: string, periodo: string, login: RcvLogin) {
  const session = await rcvSession(caller, rut, periodo, login);
  const { resumenes, sii } = await session.run((jar) => salesSummaryDetail(session.ctx, jar, rut, periodo));
  return { rut, periodo, resumenes, sii };
}

/** What a write changes in the register, as the SII client of each write takes it. */
export type RcvChange =
  | { kind: "tipo_transaccion"; documentos: Parameters<typeof rcvSetTransactionTypes>[4] }
  | { kind: "resumen"; resumenes: Parameters<typeof setResumen>[4] }
  | { kind: "boletas_diarias"; dte: number; dias: Parameters<typeof setBoletasDiarias>[5] }
  | { kind: "delete_resumen"; tipos: number[] };

function send(ctx: SiiContext, jar: CookieJar, rut: string, periodo: string, change: RcvChange) {
  if (change.kind === "tipo_transaccion") return rcvSetTransactionTypes(ctx, jar, rut, periodo, change.documentos);
  if (change.kind === "resumen") return setResumen(ctx, jar, rut, periodo, change.resumenes);
  if (change.kind === "boletas_diarias") return setBoletasDiarias(ctx, jar, rut, periodo, change.dte, change.dias);
  return deleteResumen(ctx, jar, rut, periodo, change.tipos);
}

/** A write of `rut`'s register: `errors` are its payload's own (refused before anything is sent); no `login` is a dry run. */
export interface RcvWrite {
  rut: string;
  periodo: string;
  errors: FieldError[];
  change: RcvChange;
  login: RcvLogin | null;
}

/** What a dry run's write stands in for: the SII's confirmation. */
export const RCV_WRITE_PLACEHOLDERS = ["sii"] as const;

/** Validates the write strictly, then (unless it is a dry run) sends it and answers the SII's confirmation. */
export async function writeRegister(
  caller: Caller,
  write: RcvWrite,
): Promise<Answer<{ rut: string; periodo: string; sii: Record<string, unknown>; vista_previa?: PreviewMarks }>> {
  const { rut, periodo, errors, login } = write;
  checkPeriodo(caller, periodo);
  if (errors.length) throw new ApiError(400, "VALIDATION_ERROR", `Invalid ${errors.map((e) => e.path).join(", ")}`, { errors });
  if (!login) {
    const vista_previa: PreviewMarks = { provisionales: [...RCV_WRITE_PLACEHOLDERS], estimados: [] };
    return {
      data: { rut, periodo, sii: {}, vista_previa },
      message: "Preview only (dry_run): the request is valid; nothing was sent to the SII",
    };
  }
  const { ctx, sessions } = await siiServicesFor(caller);
  const answer = await withRcvSession(sessions, rut, login, (jar) => send(ctx, jar, rut, periodo, write.change));
  const { metaData: _meta, ...sii } = answer;
  const message = String((sii.respEstado as { msgeRespuesta?: string } | undefined)?.msgeRespuesta ?? "OK");
  return { data: { rut, periodo, sii }, message };
}
