// What the RCV operations share over HTTP: the period rule, the session they run in, and the
// handlers each operation's file calls with its validated parameters: parse, call the RCV service
// (src/services/rcv.ts), answer (streamed when large).
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { santiagoDate } from "../../lib/dates.ts";
import { encodeLatin1 } from "../../lib/latin1.ts";
import { chargeUnits, settleCharge } from "../../platform/charge.ts";
import type { AppEnv } from "../../platform/context.ts";
import { isDryRun } from "../../platform/dry-run.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError, type FieldError } from "../../platform/errors.ts";
import { responseFormat } from "../../platform/negotiation.ts";
import { type Access, type ContextWith, registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { COMMIT_CHARS, heldAnswer, JSON_FORMAT, type StreamFormat, streamJson } from "../../platform/stream.ts";
import { fieldPath } from "../../platform/validation.ts";
import {
  detailCsvLines,
  detailCsvName,
  detailJson,
  downloadDocuments,
  downloadState,
  type PayRows,
  withRcvSession as rcvSession,
  readSummary,
  requestDownload,
} from "../../services/rcv-detail.ts";
import { siiServices } from "../../services/sii-context.ts";
import type { CookieJar } from "../../sii/cookies.ts";
import type { SiiContext } from "../../sii/http.ts";
import type { AsyncQuery, RcvQuery } from "../../sii/rcv.ts";
import type { SiiSessions } from "../../sii/session-service.ts";
import { parseCertificate } from "../credentials.ts";
import { type DetailQuery, type RcvAuth, WriteQuery, Written } from "./schema.ts";

/** The weight of a detail (synchronous or asynchronous): what each charged block of its rows costs. */
export const DETAIL_WEIGHT = 2;
/**
 * Documents per charged block of the synchronous detail. Measured (gateway CPU, the simulated SII
 * left out, 2-core machine under load): about 55 µs a document (each is read, checked, written,
 * and read again for `sii.data`) over about 45 ms for the summary, session and envelope, so a
 * block at its fullest is about 72 ms for 2 units, 36 ms a unit: within 100 ms a unit on a
 * machine 2.5 times slower. 10 000 documents of a period, 3 916 of type 33: 16 units.
 */
export const DETAIL_BLOCK_ROWS = 500;
/**
 * Documents per charged block of the asynchronous file: about 36 µs a document (unpacked, parsed
 * as CSV, written) over about 20 ms, so a full block is about 56 ms for 2 units, 28 ms a unit
 * (70 ms on a machine 2.5 times slower). 100 000 documents of a period, 40 081 of type 33: 82 units.
 */
export const FILE_BLOCK_ROWS = 1000;

/**
 * Documents per charged unit of the one-document lookup, which reads every state's documents of the
 * type to find the folio and writes out only the matches: about 25 µs a document here, so a full
 * block is about 25 ms a unit. 10 000 documents of a period: 4 units for its 3 900 purchases of type 33.
 */
export const LOOKUP_BLOCK_ROWS = 1000;

/** The weight per started block of `block` documents (the weight for none): every RCV read charged by its documents. */
const blockUnits = (rows: number, block: number, weight: number) => weight * Math.max(1, Math.ceil(rows / block));

/** Units for a lookup that read `read` documents: 1 (its weight) per started block of LOOKUP_BLOCK_ROWS. */
export const lookupUnits = (read: number) => blockUnits(read, LOOKUP_BLOCK_ROWS, 1);

/** Takes what the documents read so far cost beyond what was paid (the weight first), before they are checked. */
export function payLookup(c: Context<AppEnv>): (read: number) => Promise<void> {
  let paid = lookupUnits(0);
  return async (read) => {
    const due = lookupUnits(read);
    if (due > paid) await chargeUnits(c, due - paid);
    paid = Math.max(paid, due);
  };
}

/** Units for a detail of `rows` documents charged by blocks of `block`: the weight per started block, the weight for none. */
export const rowUnits = (rows: number, block: number) => blockUnits(rows, block, DETAIL_WEIGHT);

/** Takes what `rows` documents cost beyond the weight (already paid), before they are read: 429 when the plan lacks it. */
const payRows =
  (c: Context<AppEnv>, block: number): PayRows =>
  (rows) =>
    chargeUnits(c, rowUnits(rows, block) - DETAIL_WEIGHT);

/** What the synchronous detail's charge counts, and what it refuses past it, in its description's words. */
export const DETAIL_COUNT = {
  counted: "the period's summary, read first (the type's count; with `dte` 0 every type's with detail, and for `formato=csv` every type's)",
  past: "A type's detail with more documents than its count is a 502 `SII_FORMAT_CHANGED` at the first past it; a type past the synchronous detail's ceiling (no rows though the summary counts them: the 502 pointing to the asynchronous download) costs the weight only.",
};
/** The same of the asynchronous file. */
export const FILE_COUNT = {
  counted: "its download request's declared count (`caNumLineas`, read with its state; the file is fetched after)",
  past: "A file with more documents than declared is a 502 at the first past them.",
};

/** The charging rule of a detail charged by blocks of `block` documents, as its description states it. */
export const detailChargeRule = (block: number, { counted, past }: { counted: string; past: string }) =>
  `Charged ${DETAIL_WEIGHT} units (the operation's weight) per started block of ${block} documents: 1–${block} (or none) ${DETAIL_WEIGHT}, ${block + 1}–${2 * block} ${2 * DETAIL_WEIGHT}, 10 000 ${rowUnits(10_000, block)}. The documents are counted by ${counted} before any is read, so \`X-Quota-Units\` is the whole charge; a caller who cannot pay for them gets 429 \`QUOTA_EXCEEDED\` and no document is read (the weight stays charged for the SII read that counted them). ${past}`;

/** The SII's first RCV period. */
export const FIRST_PERIOD = "201705";

/** `periodo` must be a month the RCV has: from 201705 up to the current month (in Chile). */
export function checkPeriodo(c: Context<AppEnv>, periodo: string): void {
  const current = santiagoDate(c.get("deps").clock.now()).slice(0, 7).replace("-", "");
  if (periodo < FIRST_PERIOD || periodo > current) {
    throw new ApiError(400, "VALIDATION_ERROR", `periodo must be between ${FIRST_PERIOD} and ${current}`, {
      errors: [{ path: "periodo", location: "path", message: `must be a month from ${FIRST_PERIOD} to ${current}` }],
    });
  }
}

/** Runs `use` in a session as `rut` (src/services/rcv.ts), a certificate read with the request's clock. */
export function withRcvSession<T>(
  c: Context<AppEnv>,
  sessions: SiiSessions,
  rut: string,
  auth: RcvAuth,
  use: (jar: CookieJar) => Promise<T>,
): Promise<T> {
  return rcvSession(sessions, rut, auth, (cert) => parseCertificate(c, cert), use);
}

/**
 * Answers with the text `pieces(jar)` writes (JSON unless `format` says otherwise), made in the
 * taxpayer's SII session and held as `heldAnswer` does (a session wall before the first byte logs
 * in again and starts over). A larger answer streams, and the session stays held until its body
 * is finished: the SII calls it still makes (more document types, a second read) stay serialized
 * with this taxpayer's other calls.
 */
export function answerInSession(
  c: Context<AppEnv>,
  sessions: SiiSessions,
  rut: string,
  auth: RcvAuth,
  pieces: (jar: CookieJar) => AsyncGenerator<string>,
  format: StreamFormat = JSON_FORMAT,
): Promise<Response> {
  return new Promise<Response>((answer, fail) => {
    withRcvSession(c, sessions, rut, auth, async (jar) => {
      let ended = () => {};
      const finished = new Promise<void>((resolve) => {
        ended = resolve;
      });
      answer(await heldAnswer(c, pieces(jar), format, ended));
      await finished;
    }).catch(fail);
  });
}

/** The period's summary; the SII's answer is kept whole under `sii`, `resumen` is the same rows with plain names. */
export async function answerSummary(c: ContextWith<{ json: { auth: RcvAuth } }>, q: RcvQuery): Promise<Response> {
  checkPeriodo(c, q.periodo);
  const { auth } = c.req.valid("json");
  const { ctx, sessions } = await siiServices(c);
  const summary = await withRcvSession(c, sessions, q.rut, auth, (jar) => readSummary(ctx, jar, q));
  return ok(c, summary, summary.total_documentos ? "OK" : "The period has no documents");
}

/**
 * The period's documents of type `dte` (0: every type with detail, read from the summary first;
 * types kept only as totals, such as boletas, are listed as such), or with `formato=csv` the SII's
 * own export as received.
 */
export async function answerDetail(
  c: ContextWith<{ json: { auth: RcvAuth }; query: z.output<typeof DetailQuery> }>,
  q: RcvQuery,
  dte: number,
): Promise<Response> {
  checkPeriodo(c, q.periodo);
  const { auth } = c.req.valid("json");
  const { ctx, sessions } = await siiServices(c);
  const formato = responseFormat(c, c.req.valid("query").formato, { json: "application/json", csv: "text/csv" });
  if (formato === "csv") {
    const name = detailCsvName(q);
    return answerInSession(c, sessions, q.rut, auth, (jar) => detailCsvLines(ctx, jar, q, dte, payRows(c, DETAIL_BLOCK_ROWS)), {
      headers: { "content-type": "text/csv; charset=ISO-8859-1", "content-disposition": `attachment; filename="${name}"` },
      encode: (text) => encodeLatin1(text),
    });
  }
  try {
    return await answerInSession(c, sessions, q.rut, auth, (jar) =>
      detailJson(ctx, jar, q, dte, KEEP_RAW_CHARS, payRows(c, DETAIL_BLOCK_ROWS)),
    );
  } catch (err) {
    // A type past the synchronous detail's ceiling (no rows, though the summary counts them): its
    // rows were charged but none was read, so the answer (a 502 pointing to the asynchronous
    // download, sent whole) keeps the weight only.
    if (err instanceof ApiError && err.status === 502 && err.init.details?.async) await settleCharge(c, DETAIL_WEIGHT);
    throw err;
  }
}

/** The SII's rows kept to answer `sii.data` from the same read (a quarter of what an answer holds before streaming). */
export const KEEP_RAW_CHARS = COMMIT_CHARS / 4;

/**
 * One step of the asynchronous download: `solicitar` asks the SII to prepare the period's file,
 * `estado` reads the request's state, `detalle` answers the finished file's documents.
 */
export async function answerAsync(
  c: ContextWith<{ json: { auth: RcvAuth } }>,
  step: "solicitar" | "estado" | "detalle",
  q: AsyncQuery,
  solicitudId = 0,
): Promise<Response> {
  checkPeriodo(c, q.periodo);
  const { auth } = c.req.valid("json");
  const { ctx, sessions } = await siiServices(c);
  return withRcvSession(c, sessions, q.rut, auth, async (jar) => {
    if (step === "solicitar") return ok(c, await requestDownload(ctx, jar, q), "Download requested; poll its state");
    if (step === "estado") return ok(c, await downloadState(ctx, jar, q, solicitudId));
    return streamJson(c, await downloadDocuments(ctx, jar, q, solicitudId, payRows(c, FILE_BLOCK_ROWS)));
  });
}

/** monto_total must be what its parts add up to. */
export function checkTotals(
  rows: { monto_exento: number; monto_neto: number; monto_iva: number; monto_total: number }[],
  path: string,
): FieldError[] {
  return rows.flatMap((r, i) =>
    r.monto_exento + r.monto_neto + r.monto_iva === r.monto_total
      ? []
      : [
          {
            path: fieldPath(path, i, "monto_total"),
            location: "body" as const,
            message: `must be monto_exento + monto_neto + monto_iva (${r.monto_exento + r.monto_neto + r.monto_iva})`,
          },
        ],
  );
}

function refuse(errors: FieldError[]): void {
  if (errors.length) throw new ApiError(400, "VALIDATION_ERROR", `Invalid ${errors.map((e) => e.path).join(", ")}`, { errors });
}

/**
 * A write: its payload is validated strictly (`check`) before anything is sent; `dry_run` stops
 * there. Typed by the schemas' outputs, so the route built from them types its handler's input.
 */
export interface WriteSpec<Params extends { periodo: string }, Body extends { auth: RcvAuth }> {
  path: string;
  access: Access;
  summary: string;
  /** How the SII-side call is known (the operation's description). */
  description?: string;
  params: z.ZodObject & z.ZodType<Params>;
  /** The taxpayer whose register is written. */
  rut: (params: Params) => string;
  body: z.ZodType<Body>;
  check?: (body: Body, params: Params) => FieldError[];
  send: (ctx: SiiContext, jar: CookieJar, rut: string, body: Body, params: Params) => Promise<Record<string, unknown>>;
}

export function registerRcvWrite<Params extends { periodo: string }, Body extends { auth: RcvAuth }>(
  app: OpenAPIHono<AppEnv>,
  spec: WriteSpec<Params, Body>,
): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: spec.path,
      tags: ["RCV"],
      summary: spec.summary,
      description:
        spec.description ??
        "The SII-side call of this operation is inferred (not public); `dry_run` validates everything without contacting the SII.",
      request: { params: spec.params, query: WriteQuery, body: jsonBody(spec.body) },
      responses: { 200: jsonContent(Written, "The SII's confirmation"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    spec.access,
    async (c) => {
      const params = c.req.valid("param");
      const rut = spec.rut(params);
      checkPeriodo(c, params.periodo);
      const body = c.req.valid("json");
      refuse(spec.check?.(body, params) ?? []);
      if (isDryRun(c))
        return ok(
          c,
          { rut, periodo: params.periodo, sii: {} },
          "Preview only (dry_run): the request is valid; nothing was sent to the SII",
        );
      const { ctx, sessions } = await siiServices(c);
      const answer = await withRcvSession(c, sessions, rut, body.auth, (jar) => spec.send(ctx, jar, rut, body, params));
      const { metaData: _meta, ...sii } = answer;
      return ok(
        c,
        { rut, periodo: params.periodo, sii },
        String((sii.respEstado as { msgeRespuesta?: string } | undefined)?.msgeRespuesta ?? "OK"),
      );
    },
  );
}
