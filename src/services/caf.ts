// The SII's folio ranges (CAF) for a caller: stamping a range in the taxpayer's certificate session,
// and annulling unused folios. Both are irreversible at the SII: never retried here (the operation
// wrapper honours Idempotency-Key), and a preview (dry_run) asks the SII nothing. What the SII
// grants or annuls reaches the account's folio ledger: a granted CAF is added when asked, annulled
// folios are voided there.
import type { SigningCredential } from "../certificates/credentials.ts";
import { bytesToBase64 } from "../lib/encoding.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import { annulFolios, requestFolios } from "../sii/folios.ts";
import { addCaf } from "./folio-ledger.ts";
import { siiServicesFor } from "./sii-context.ts";

export interface CafRequest {
  emisor: string;
  tipo: number;
  cantidad: number;
  ambiente: "0" | "1";
  /** Also add the CAF granted to the account's folio ledger. */
  ledger: boolean;
}

/** A range stamped (or, with `dryRun`, its preview) and what the answer says of it. */
export async function requestCaf(caller: Caller, credential: SigningCredential, request: CafRequest, dryRun: boolean) {
  const { emisor, tipo, cantidad, ambiente } = request;
  if (dryRun) {
    const fecha_autorizacion = caller.deps.clock.now().toISOString().slice(0, 10);
    const data = { folio_inicial: 1, folio_final: cantidad, fecha_autorizacion, cantidad, reobtenido: false, caf_xml: "" };
    return { data, message: `Preview only (dry_run): the certificate of ${credential.rut} is valid; nothing was requested from the SII` };
  }
  const { ctx, sessions } = await siiServicesFor(caller);
  const { caf, ...range } = await sessions.withCertificate(credential, ambiente, (jar) =>
    requestFolios(ctx, jar, { emisor, tipo, cantidad, ambiente }),
  );
  const data = { ...range, caf_xml: bytesToBase64(caf) };
  const message = `Folios ${range.folio_inicial} to ${range.folio_final} granted`;
  if (!request.ledger) return { data, message };
  // The folios are stamped whatever the ledger says: a refusal to add them is told, never thrown, so the file is not lost.
  try {
    const ledger = await addCaf(caller.deps, caller.account(), emisor, tipo, data.caf_xml);
    return { data: { ...data, ledger }, message: `${message} and added to the folio ledger` };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { data: { ...data, ledger: null }, message: `${message}; not added to the folio ledger: ${error.message}` };
  }
}

export interface CafAnnulment {
  emisor: string;
  tipo: number;
  desde: number;
  hasta: number;
  ambiente: "0" | "1";
}

/** Unused folios annulled at the SII (or, with `dryRun`, the preview), then voided in the account's ledger. */
export async function annulCaf(caller: Caller, credential: SigningCredential, annulment: CafAnnulment, dryRun: boolean) {
  const { emisor, tipo, desde, hasta } = annulment;
  const count = hasta - desde + 1;
  if (dryRun) {
    const data = { glosa: "", folios_anulados: count, anulados_ledger: 0 };
    return { data, message: `Preview only (dry_run): ${count} folios would be annulled; nothing was sent to the SII` };
  }
  const { ctx, sessions } = await siiServicesFor(caller);
  const result = await sessions.withCertificate(credential, annulment.ambiente, (jar) => annulFolios(ctx, jar, annulment));
  // The SII annulled them: the account's ledger never hands them out (a range it does not hold is left alone).
  const anulados_ledger = await caller.deps.folios.void(caller.account(), emisor, tipo, desde, hasta);
  return { data: { ...result, anulados_ledger }, message: `${result.folios_anulados} folios annulled` };
}
