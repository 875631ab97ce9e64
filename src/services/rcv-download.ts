// The RCV's asynchronous download as the gateway composes it from the SII's services, with no
// HTTP: the request, its state, and the finished file's documents written as the pieces of the
// answer's `data`. src/services/rcv.ts runs them in a session.
import { ApiError } from "../platform/errors.ts";
import type { CookieJar } from "../sii/cookies.ts";
import type { SiiContext } from "../sii/http.ts";
import { type AsyncJob, type AsyncQuery, asyncFileLines, asyncJob, CsvDocuments, checkFileCount, requestAsync } from "../sii/rcv.ts";
import type { PayRows } from "./rcv-charge.ts";

/**
 * The answer's `data` written as the file arrives, a document at a time, so a period of any size
 * passes through in flat memory. `registros` comes after `documentos`: it is known only at the end,
 * and must be what the request declared (caNumLineas), else the answer is an error (or, once
 * streaming, aborted) rather than a short list that looks whole.
 */
async function* documentsJson(job: AsyncJob, lines: ReadableStream<string>, q: AsyncQuery): AsyncGenerator<string> {
  const reader = lines.getReader();
  let finished = false;
  try {
    yield `{"solicitud_id":${job.solicitud_id},"documentos":[`;
    let documents: CsvDocuments | undefined;
    let count = 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      if (!documents) documents = new CsvDocuments(next.value, q.estado, undefined, q.operacion);
      else {
        const done = documents.push(next.value);
        if (!done) continue;
        // A document past the declared count (what was paid for) stops the file there.
        if (count === job.registros) checkFileCount(job, count + 1);
        yield `${count++ ? "," : ""}${JSON.stringify(done)}`;
      }
    }
    finished = true;
    const last = documents?.end();
    if (last) yield `${count++ ? "," : ""}${JSON.stringify(last)}`;
    checkFileCount(job, count);
    yield `],"registros":${count}}`;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}

/** A download's state as answered: the job without the SII's opaque blob. */
const plainJob = ({ blob: _blob, ...job }: AsyncJob) => job;

/** Asks the SII to prepare the period's file. */
export async function requestFile(ctx: SiiContext, jar: CookieJar, q: AsyncQuery) {
  return plainJob(await requestAsync(ctx, jar, q));
}

/** The download's state. */
export async function fileState(ctx: SiiContext, jar: CookieJar, q: AsyncQuery, solicitudId: number) {
  return plainJob(await asyncJob(ctx, jar, q, solicitudId));
}

/**
 * The finished file's documents, as the pieces of the answer's `data`; a 400 while the SII still
 * prepares it. `pay` takes the units for the documents the request declares (caNumLineas) before
 * the file is fetched.
 */
export async function fileDocuments(
  ctx: SiiContext,
  jar: CookieJar,
  q: AsyncQuery,
  solicitudId: number,
  pay: PayRows,
): Promise<AsyncGenerator<string>> {
  return finishedFile(ctx, jar, q, await asyncJob(ctx, jar, q, solicitudId), pay);
}

/** The same of a request whose state was just read (`job`, with the SII's blob): the RCV download job reads it once. */
export async function finishedFile(
  ctx: SiiContext,
  jar: CookieJar,
  q: AsyncQuery,
  job: AsyncJob,
  pay: PayRows,
): Promise<AsyncGenerator<string>> {
  if (job.estado !== "TERMINADO") {
    throw new ApiError(400, "VALIDATION_ERROR", `Download ${job.solicitud_id} is ${job.estado}, not TERMINADO yet; poll its state`, {
      details: { estado: job.estado },
    });
  }
  await pay(job.registros);
  const lines = await asyncFileLines(ctx, jar, q, job);
  return documentsJson(job, lines, q);
}
