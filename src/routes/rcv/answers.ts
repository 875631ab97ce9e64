// What the RCV reads share over HTTP: the login read from the request (the certificate parsed
// here, with its fee charged to the request), and the answers of the operations several routes
// serve (summary, detail, the asynchronous download): one call of the RCV service
// (src/services/rcv.ts) each, answered whole or held and streamed (src/platform/stream.ts).
import type { z } from "@hono/zod-openapi";
import { encodeLatin1 } from "../../lib/latin1.ts";
import { callerOf } from "../../platform/caller.ts";
import { ok, okHeld } from "../../platform/envelope.ts";
import { contentDisposition } from "../../platform/file-answer.ts";
import { responseFormat } from "../../platform/negotiation.ts";
import type { ContextWith } from "../../platform/operation.ts";
import { heldBody } from "../../platform/stream.ts";
import { downloadDocuments, downloadState, exportDetail, readDetail, readSummary, requestDownload } from "../../services/rcv.ts";
import type { AsyncQuery, RcvQuery } from "../../sii/rcv.ts";
import { loginOf } from "../credentials.ts";
import type { DetailQuery, RcvAuth } from "./schema.ts";

/** The period's summary. */
export async function answerSummary(c: ContextWith<{ json: { auth: RcvAuth } }>, q: RcvQuery): Promise<Response> {
  const { data, message } = await readSummary(callerOf(c), q, await loginOf(c, c.req.valid("json").auth));
  return ok(c, data, message);
}

/** The period's documents of type `dte` (0: every type with detail), or with `formato=csv` the SII's own export as received. */
export async function answerDetail(
  c: ContextWith<{ json: { auth: RcvAuth }; query: z.output<typeof DetailQuery> }>,
  q: RcvQuery,
  dte: number,
): Promise<Response> {
  const formato = responseFormat(c, c.req.valid("query").formato, { json: "application/json", csv: "text/csv" });
  const login = await loginOf(c, c.req.valid("json").auth);
  if (formato !== "csv") {
    const text = await readDetail(callerOf(c), q, dte, login);
    return okHeld(c, text);
  }
  const { name, text } = await exportDetail(callerOf(c), q, dte, login);
  return heldBody(c, text, {
    headers: { "content-type": "text/csv; charset=ISO-8859-1", "content-disposition": contentDisposition("attachment", name) },
    encode: (csv) => encodeLatin1(csv),
  });
}

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
  const caller = callerOf(c);
  const login = await loginOf(c, c.req.valid("json").auth);
  if (step === "solicitar") {
    const job = await requestDownload(caller, q, login);
    return ok(c, job, "Download requested; poll its state");
  }
  if (step === "estado") {
    const job = await downloadState(caller, q, solicitudId, login);
    return ok(c, job);
  }
  const text = await downloadDocuments(caller, q, solicitudId, login);
  return okHeld(c, text);
}
