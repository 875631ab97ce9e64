// What `documentos/generar` does once its body is read, with no HTTP: the certificate's SII check, the
// charge per block of documents, the folios taken from the account's ledger (folio-allocation.ts) and
// settled or given back around the signing, and the charge of a signing stopped half-way. It answers
// the `data` of the answer as JSON text in pieces, and what the ledger gave (for the answer's headers).

import type { SigningCredential } from "../certificates/credentials.ts";
import { callerSignerWarnings } from "../certificates/signer-profile.ts";
import { type GeneratedParts, GenerationStopped, generateDocumentParts } from "../dte/generate/generate.ts";
import { unitsFor } from "../platform/batch-limits.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import { LEASE_MS } from "../platform/idempotency.ts";
import { trustedCafKeys } from "./caf-keys.ts";
import {
  giveBack,
  holdFor,
  type LedgerUse,
  type Released,
  remaining,
  settleTake,
  type Taker,
  takeLedgerFolios,
} from "./folio-allocation.ts";
import { watchLedger } from "./folio-watch.ts";

/** A `generar` request as its route read it: the documents checked, their lines counted, the certificate parsed. */
export interface GenerarRequest {
  documents: Record<string, unknown>[];
  /** Detalle lines of all the documents (charged by the block). */
  lines: number;
  signer: SigningCredential;
  /** The request's CAF files; none: the folios and their CAFs come from the account's ledger. */
  caf?: string | string[];
  resolucion: { fecha: string; numero: number };
  normalizar: boolean;
  receptorEnvio?: string;
  /** The request's Idempotency-Key and fingerprint, when it has one: it names the folios' hold. */
  idempotent?: { key: string; print: string; leaseMs: number };
  /** The request's id, for the log line of a signing stopped half-way. */
  requestId: string;
  /** The request's yielder: lets other requests run between documents. */
  pause: () => Promise<void>;
  /** The operation's weight, paid before the work: the documents' blocks beyond the first are charged here. */
  weight: number;
}

export interface Generar {
  /** The answer's `data` as JSON text, in pieces. */
  data: AsyncIterable<string>;
  /** What each type taken from the ledger has left; absent when no folio came from the ledger. */
  ledger?: LedgerUse[];
}

/** Signs the documents and their envelope for `caller`, taking the folios they need from its ledger. */
export async function generarDocumentos(caller: Caller, request: GenerarRequest): Promise<Generar> {
  const { documents, signer, pause, weight } = request;
  // A certificate the SII would refuse is a 400 before any folio is taken.
  callerSignerWarnings(signer.certificateBase64);
  // Charged before the work (the blocks beyond the first, whose weight is paid); a refusal (400) gives every unit back.
  await caller.charge(unitsFor(weight, documents.length, request.lines) - weight, "this call");
  const given = request.caf === undefined ? undefined : Array.isArray(request.caf) ? request.caf : [request.caf];
  const { deps } = caller;
  const taker: Taker = {
    deps,
    account: caller.account(),
    hold: holdFor(deps, request.idempotent, deps.config.idempotencyLeaseMs ?? LEASE_MS),
  };
  const ledger = await takeLedgerFolios(taker, documents, given !== undefined);
  let generated: GeneratedParts;
  try {
    generated = await generateDocumentParts(
      {
        documents,
        cafs: given ?? ledger?.cafs ?? [],
        resolucion: request.resolucion,
        normalizar: request.normalizar,
        receptorEnvio: request.receptorEnvio,
      },
      { signer, now: deps.clock.now(), cafKeys: trustedCafKeys(deps), pause },
    );
    // From here on an answer holding the folios exists: nothing gives them back.
    if (ledger) await settleTake(taker, ledger);
  } catch (error) {
    // Nothing signed is answered: the folios this attempt still holds go back to the ledger.
    const released = ledger ? await giveBack(taker, ledger) : [];
    if (error instanceof GenerationStopped) throw await stopped(caller, request, error, released);
    throw error;
  }
  if (ledger) {
    await remaining(taker, ledger);
    // A type left at or below its threshold is looked at now: its `folios.low` comes in seconds, not hours.
    for (const use of ledger.uses) if (use.bajo_umbral) await watchLedger(caller, { emisor: ledger.emisor, dte: use.tipo });
  }
  return { data: generatedJson(generated, pause, ledger?.uses), ledger: ledger?.uses };
}

/**
 * The refusal when signing stopped half-way: the blocks holding a signed document are charged
 * (none when nothing was signed), and the error says which documents were signed and which failed and why,
 * and which ledger folios went back to the ledger (`folios_liberados`).
 */
async function stopped(caller: Caller, request: GenerarRequest, error: GenerationStopped, released: Released): Promise<ApiError> {
  const signed = error.signed.length;
  const begun = signed === 0 ? 0 : unitsFor(request.weight, signed);
  await caller.settle(begun);
  const cause = error.cause instanceof Error ? error.cause.name : "error";
  caller.deps.log.log({ level: "error", msg: "generar stopped half-way", request_id: request.requestId, signed, error: cause });
  return new ApiError(
    500,
    "INTERNAL_ERROR",
    `Signing stopped at dte[${error.failed.index}] after ${signed} of the documents were signed; nothing was answered signed: send the request again`,
    {
      details: {
        firmados: error.signed,
        fallido: error.failed,
        unidades_cobradas: begun,
        ...(released.length ? { folios_liberados: released } : {}),
      },
    },
  );
}

/** The answer's `data` as JSON text in pieces: each document, then the envelope's base64 in slices. */
async function* generatedJson(generated: GeneratedParts, pause: () => Promise<void>, ledger?: LedgerUse[]): AsyncGenerator<string> {
  yield `{"sobre":${JSON.stringify(generated.sobre)},"documentos":[`;
  for (const [i, documento] of generated.documentos.entries()) {
    yield (i ? "," : "") + JSON.stringify(documento);
    await pause();
  }
  yield '],"envio_xml":"';
  // Base64 needs no JSON escape.
  for (const piece of generated.envioBase64) {
    yield piece;
    await pause();
  }
  yield ledger ? `","folios_ledger":${JSON.stringify(ledger)}}` : '"}';
}
